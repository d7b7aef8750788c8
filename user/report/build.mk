# user/report: readers of a finished database (README.md)
$(eval $(call component,report))
