/*
 * rt_scope.c - aclnpuScopeBegin / aclnpuScopeEnd (acl/acl_npu_op.h): an
 * acl-level API enclosing a node-level `launch` held open by the caller, so
 * that every task it launches meanwhile gets that launch's connectionId, as
 * the tasks of one GE node or HCCL op do (docs/ascend-reference.md §5.1).
 */
#include "acl/acl_npu_op.h"
#include "rt_prof.h"

static __thread struct rt_api t_acl, t_node;
static __thread int t_open;

aclError aclnpuScopeBegin(const char *aclName, const char *opName)
{
	if (!aclName || !*aclName)
		return ACL_ERROR_INVALID_PARAM;
	if (t_open)
		return ACL_ERROR_FAILURE; /* scopes do not nest */
	rt_api_begin(&t_acl, NPUPROF_API_ACL, aclName, opName);
	rt_api_begin(&t_node, NPUPROF_API_NODE, "launch", opName);
	t_open = 1;
	return ACL_SUCCESS;
}

aclError aclnpuScopeEnd(void)
{
	if (!t_open)
		return ACL_ERROR_FAILURE;
	rt_api_end(&t_node, ACL_SUCCESS);
	rt_api_end(&t_acl, ACL_SUCCESS);
	t_open = 0;
	return ACL_SUCCESS;
}
