# user/common: helpers every component may use (README.md)
$(eval $(call component,common))
