"""npuprof.torch.scheduler: torch_npu.profiler's schedule (its
scheduler.py): which action each step of a profile takes."""
import enum

from .experimental_config import print_warn_msg


class ProfilerAction(enum.Enum):
    NONE = 0
    WARMUP = 1
    RECORD = 2
    RECORD_AND_SAVE = 3


class Schedule:
    """torch_npu.profiler.schedule: skip the first skip_first steps, then
    cycles of wait steps (NONE), warmup steps (WARMUP) and active steps
    (RECORD; the last one RECORD_AND_SAVE); repeat cycles (0: for ever);
    skip_first_wait != 0 leaves out the first cycle's wait. A bad argument
    is reset with torch_npu's warning."""

    def __init__(self, wait, active, warmup=0, repeat=0, skip_first=0, skip_first_wait=0):
        self.wait = wait
        self.active = active
        self.warmup = warmup
        self.repeat = repeat
        self.skip_first = skip_first
        self.skip_first_wait = skip_first_wait
        self._check_params()

    def __call__(self, step):
        if step < 0:
            raise ValueError("Invalid parameter step, which must be not less than 0.")
        if step < self.skip_first:
            return ProfilerAction.NONE
        step -= self.skip_first
        if self.skip_first_wait != 0:
            step += self.wait
        num_steps = self.wait + self.warmup + self.active
        if self.repeat > 0 and step // num_steps >= self.repeat:
            return ProfilerAction.NONE
        mod_step = step % num_steps
        if mod_step < self.wait:
            return ProfilerAction.NONE
        if mod_step < self.wait + self.warmup:
            return ProfilerAction.WARMUP
        return ProfilerAction.RECORD if mod_step < num_steps - 1 else ProfilerAction.RECORD_AND_SAVE

    def _check_params(self):
        for name, low, reset in (("wait", 0, 0), ("warmup", 0, 0), ("active", 1, 1), ("repeat", 0, 0),
                                 ("skip_first", 0, 0)):
            v = getattr(self, name)
            if not isinstance(v, int) or v < low:
                print_warn_msg("Invalid parameter %s, reset it to %d." % (name, reset))
                setattr(self, name, reset)
        if not isinstance(self.skip_first_wait, int):
            print_warn_msg("Invalid parameter skip_first_wait, reset it to 0.")
            self.skip_first_wait = 0
        if self.warmup == 0:
            print_warn_msg("Profiler won't be using warmup, this can skew profiler results")


schedule = Schedule


def _default_schedule_fn(_step):
    return ProfilerAction.RECORD


_RECORDING = (ProfilerAction.RECORD, ProfilerAction.RECORD_AND_SAVE)
