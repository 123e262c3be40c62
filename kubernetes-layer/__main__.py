"""Pulumi program of the Kubernetes layer (kubernetesLayer: separate), run from inside the cluster's VPC."""

from mlplatform_program import kubernetes_layer_program

kubernetes_layer_program()
