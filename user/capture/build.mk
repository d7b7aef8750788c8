# user/capture: the capture engines (README.md); the BPF engine compiles
# against bpf/'s skeleton (bpf/bpf.mk)
$(eval $(call component,capture))
INC_capture += $(BPF_INC)
