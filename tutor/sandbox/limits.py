"""What a run may use, and what it produced."""

import dataclasses
from dataclasses import dataclass

KIB = 1024
MIB = 1024 * KIB

STATUSES = ("ok", "error", "timeout", "memory", "output_limit", "killed")


@dataclass(frozen=True)
class Limits:
    cpu_seconds: int = 5
    wall_seconds: float = 10.0
    memory_bytes: int = 256 * MIB
    processes: int = 64  # processes and threads together
    file_size_bytes: int = 1 * MIB
    open_files: int = 64
    output_bytes: int = 64 * KIB  # stdout and stderr together
    source_bytes: int = 64 * KIB
    stdin_bytes: int = 1 * MIB
    workdir_bytes: int = 16 * MIB  # the private tmpfs at /tmp

    def __post_init__(self):
        for field in dataclasses.fields(self):
            if getattr(self, field.name) <= 0:
                raise ValueError(f"sandbox limit {field.name} must be positive")

    def clamp(self, maxima: "Limits") -> "Limits":
        """These limits, each lowered to the admin-set maximum where it exceeds it."""
        return Limits(
            **{
                field.name: min(getattr(self, field.name), getattr(maxima, field.name))
                for field in dataclasses.fields(self)
            }
        )

    def raised(self, maxima: "Limits", **changes) -> "Limits":
        """A copy with some limits changed (say, by a course), never beyond ``maxima``."""
        return dataclasses.replace(self, **changes).clamp(maxima)


@dataclass(frozen=True)
class Result:
    status: str
    exit_code: int | None
    stdout: str
    stderr: str
    duration_ms: int
    truncated: bool = False

    def to_dict(self) -> dict:
        return {
            "status": self.status,
            "exit_code": self.exit_code,
            "stdout": self.stdout,
            "stderr": self.stderr,
            "duration_ms": self.duration_ms,
            "truncated": self.truncated,
        }


class SandboxUnavailable(RuntimeError):
    """The sandbox cannot run code on this machine; the message says how to fix it."""
