/*
 * rt_error_codes.h - the runtime's error codes (ACL_ERROR_RT_*), a subset.
 *
 * npuprof's own text. CANN defines these as macros; names and values match
 * CANN's error_codes/rt_error_codes.h so code written against CANN compiles
 * and compares unchanged. Each is guarded so that a second definition (for
 * example acl_base.h's ACL_ERROR_RT_PROFILING_ERROR) does not clash.
 */
#ifndef INC_EXTERNAL_ACL_ERROR_CODES_RT_ERROR_CODES_H_
#define INC_EXTERNAL_ACL_ERROR_CODES_RT_ERROR_CODES_H_

#ifndef ACL_RT_SUCCESS
#define ACL_RT_SUCCESS 0
#endif
/* Parameter errors (1070xx). */
#ifndef ACL_ERROR_RT_PARAM_INVALID
#define ACL_ERROR_RT_PARAM_INVALID 107000 /* bad handle or argument */
#endif
#ifndef ACL_ERROR_RT_INVALID_DEVICEID
#define ACL_ERROR_RT_INVALID_DEVICEID 107001 /* no such device */
#endif
#ifndef ACL_ERROR_RT_CONTEXT_NULL
#define ACL_ERROR_RT_CONTEXT_NULL 107002 /* no device set on this thread */
#endif
#ifndef ACL_ERROR_RT_STREAM_CONTEXT
#define ACL_ERROR_RT_STREAM_CONTEXT 107003 /* stream of another device */
#endif
#ifndef ACL_ERROR_RT_INVALID_HANDLE
#define ACL_ERROR_RT_INVALID_HANDLE 107017
#endif
/* Capture errors (1070xx): a stream being captured into a model run
 * instance (acl_rt.h, aclmdlRI*). */
#ifndef ACL_ERROR_RT_MODEL_CAPTURED
#define ACL_ERROR_RT_MODEL_CAPTURED 107026 /* the model is being captured */
#endif
#ifndef ACL_ERROR_RT_STREAM_CAPTURED
#define ACL_ERROR_RT_STREAM_CAPTURED 107027 /* the stream is being captured */
#endif
#ifndef ACL_ERROR_RT_STREAM_NOT_CAPTURED
#define ACL_ERROR_RT_STREAM_NOT_CAPTURED 107029 /* the stream is not being captured */
#endif
#ifndef ACL_ERROR_RT_CAPTURE_MODE_NOT_SUPPORT
#define ACL_ERROR_RT_CAPTURE_MODE_NOT_SUPPORT 107030 /* an unsafe call in a capture mode */
#endif
#ifndef ACL_ERROR_RT_STREAM_CAPTURE_WRONG_THREAD
#define ACL_ERROR_RT_STREAM_CAPTURE_WRONG_THREAD 107038 /* ended in another thread */
#endif
/* Resource errors (2070xx). */
#ifndef ACL_ERROR_RT_FEATURE_NOT_SUPPORT
#define ACL_ERROR_RT_FEATURE_NOT_SUPPORT 207000 /* npusim cannot honour the call */
#endif
#ifndef ACL_ERROR_RT_MEMORY_ALLOCATION
#define ACL_ERROR_RT_MEMORY_ALLOCATION 207001
#endif
#ifndef ACL_ERROR_RT_RESOURCE_ALLOC_FAIL
#define ACL_ERROR_RT_RESOURCE_ALLOC_FAIL 207005 /* no resource left (e.g. tdt queues) */
#endif
#ifndef ACL_ERROR_RT_QUEUE_EMPTY
#define ACL_ERROR_RT_QUEUE_EMPTY 207013 /* a tdt channel or queue with nothing to take */
#endif
#ifndef ACL_ERROR_RT_QUEUE_FULL
#define ACL_ERROR_RT_QUEUE_FULL 207014 /* a tdt channel or queue at its capacity */
#endif
/* Internal errors (5070xx). */
#ifndef ACL_ERROR_RT_INTERNAL_ERROR
#define ACL_ERROR_RT_INTERNAL_ERROR 507000
#endif
#ifndef ACL_ERROR_RT_STREAM_NOT_COMPLETE
#define ACL_ERROR_RT_STREAM_NOT_COMPLETE 507004
#endif
#ifndef ACL_ERROR_RT_CONTEXT_RELEASE_ERROR
#define ACL_ERROR_RT_CONTEXT_RELEASE_ERROR 507007
#endif
#ifndef ACL_ERROR_RT_PROFILING_ERROR
#define ACL_ERROR_RT_PROFILING_ERROR 507021
#endif
#ifndef ACL_ERROR_RT_STREAM_CAPTURE_INVALIDATED
#define ACL_ERROR_RT_STREAM_CAPTURE_INVALIDATED 507903 /* the capture failed */
#endif
#ifndef ACL_ERROR_RT_DEV_SETUP_ERROR
#define ACL_ERROR_RT_DEV_SETUP_ERROR 507033
#endif
#ifndef ACL_ERROR_RT_DRV_INTERNAL_ERROR
#define ACL_ERROR_RT_DRV_INTERNAL_ERROR 507899 /* the driver failed */
#endif

#endif /* INC_EXTERNAL_ACL_ERROR_CODES_RT_ERROR_CODES_H_ */
