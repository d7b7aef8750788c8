# user/session: the session directory and the STARS log drain (README.md)
$(eval $(call component,session))
