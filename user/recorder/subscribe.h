/*
 * subscribe.h - what the reporter ABI (profapi.c) tells the model
 * subscription (subscribe.c): the devices GE loads its models on
 * (MsprofSetDeviceIdByGeModelIdx / MsprofUnsetDeviceIdByGeModelIdx).
 */
#ifndef NPUPROF_RECORDER_SUBSCRIBE_H
#define NPUPROF_RECORDER_SUBSCRIBE_H

#include <stdint.h>

/* 0, or -1 if no more models can be kept (set) or the model is not
 * loaded on that device, or still subscribed (unset). */
int npuprof_model_dev_set(uint32_t model, uint32_t dev);
int npuprof_model_dev_unset(uint32_t model, uint32_t dev);

#endif
