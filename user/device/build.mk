# user/device: the device backends and the npusim client (README.md)
$(eval $(call component,device))
