# user/db: the msprof database writer (README.md)
$(eval $(call component,db))
