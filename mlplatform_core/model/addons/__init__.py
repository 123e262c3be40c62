"""Cluster add-ons as plain data: chart pins, Helm values, EKS add-on configuration and IAM documents.

One module per add-on (a new add-on gets its own module here and its resources in
components/platform.py); `charts` pins every chart version, `core_services` places
core add-ons on the initial group, `irsa` builds service-account trust policies, `node_agents`
lists every DaemonSet the stack installs with the groups it must run on, `run_by_aws` what EKS Auto Mode
runs in the add-ons' place.
"""
