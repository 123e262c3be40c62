"""The NVIDIA DRA driver's device facts: read from its Go source and chart templates, nothing typed by hand."""

from __future__ import annotations

from tests.scripts.test_generators import load

# Trimmed from NVIDIA/k8s-dra-driver-gpu v25.12.0 cmd/gpu-kubelet-plugin (the shapes the generator reads).
PARTITIONS = """
func (d *GpuInfo) PartDevAttributes() map[resourceapi.QualifiedName]resourceapi.DeviceAttribute {
\tpciBusIDAttrName := resourceapi.QualifiedName(deviceattribute.StandardDeviceAttributePrefix + "pciBusID")
\treturn map[resourceapi.QualifiedName]resourceapi.DeviceAttribute{
\t\t"type": {
\t\t\tStringValue: ptr.To(GpuDeviceType),
\t\t},
\t\t"productName": {
\t\t\tStringValue: &d.productName,
\t\t},
\t\tpciBusIDAttrName: {
\t\t\tStringValue: &d.pcieBusID,
\t\t},
\t}
}
"""
DEVICEINFO = """
func (d *GpuInfo) GetDevice() resourceapi.Device {
\tdevice := resourceapi.Device{
\t\tName:       d.CanonicalName(),
\t\tAttributes: d.PartDevAttributes(),
\t\tCapacity: map[resourceapi.QualifiedName]resourceapi.DeviceCapacity{
\t\t\t"memory": {
\t\t\t\tValue: *resource.NewQuantity(int64(d.memoryBytes), resource.BinarySI),
\t\t\t},
\t\t},
\t}
\treturn device
}

func (d *MigDeviceInfo) GetDevice() resourceapi.Device {
\tpciBusIDAttrName := resourceapi.QualifiedName(deviceattribute.StandardDeviceAttributePrefix + "pciBusID")
\tdevice := resourceapi.Device{
\t\tName: d.CanonicalName(),
\t\tAttributes: map[resourceapi.QualifiedName]resourceapi.DeviceAttribute{
\t\t\t"type": {
\t\t\t\tStringValue: ptr.To("mig"),
\t\t\t},
\t\t\t"profile": {
\t\t\t\tStringValue: &d.Profile,
\t\t\t},
\t\t},
\t\tCapacity: map[resourceapi.QualifiedName]resourceapi.DeviceCapacity{
\t\t\t"multiprocessors": {
\t\t\t\tValue: *resource.NewQuantity(int64(d.giProfileInfo.MultiprocessorCount), resource.BinarySI),
\t\t\t},
\t\t\t"memory": {Value: *resource.NewQuantity(int64(d.giProfileInfo.MemorySizeMB*1024*1024), resource.BinarySI)},
\t\t},
\t}
\tfor i := d.PlacementStart; i < d.PlacementStart+d.PlacementSize; i++ {
\t\tcapacity := resourceapi.QualifiedName(fmt.Sprintf("memorySlice%d", i))
\t}
\treturn device
}
"""
TYPES = 'const (\n\tGpuDeviceType = "gpu"\n\tMigStaticDeviceType = "mig"\n)\n'
CLASS = """{{- if .Values.resources.gpus.enabled }}
---
apiVersion: {{ include "nvidia-dra-driver-gpu.resourceApiVersion" . }}
kind: DeviceClass
metadata:
  name: mig.nvidia.com
spec:
  selectors:
  - cel:
      expression: "device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].type == 'mig'"
{{- end }}
"""


def test_attributes_capacities_and_types_are_read_from_the_go_source():
    gen = load("generate_nvidia_dra_devices")
    found = gen.devices(PARTITIONS, DEVICEINFO, TYPES)
    assert found["gpu"] == {
        "type": "gpu",
        "attributes": ["productName", "type"],
        "standardAttributes": ["pciBusID"],
        "capacities": ["memory"],
    }
    assert found["mig"]["attributes"] == ["profile", "type"]  # not the nested StringValue keys
    assert found["mig"]["capacities"] == ["memory", "memorySlice<i>", "multiprocessors"]


def test_device_classes_are_read_from_the_chart_templates():
    gen = load("generate_nvidia_dra_devices")
    assert gen.device_classes({"deviceclass-mig.yaml": CLASS}) == {
        "mig.nvidia.com": ["device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].type == 'mig'"]
    }


def test_the_shipped_snapshot_names_its_pinned_source():
    import json

    from tests.conftest import ROOT

    data = json.loads((ROOT / "mlplatform_core/data/nvidia_dra_devices.json").read_text())
    assert {s["role"] for s in data["source"]} == {"nvidia-dra-driver-plugin", "nvidia-dra-driver-deviceclasses"}
    assert all(s["commit"] == "0882da8720c28763137e0987778ec476ec4cf8df" for s in data["source"])  # v25.12.0
