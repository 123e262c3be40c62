"""Pulumi program of this project: an EKS cluster laid out for ML platforms (ml-platform-eks).

The program is installed with the package; `mlplatform plan` shows what it builds, offline.
"""

from mlplatform_program import cluster_program

cluster_program()
