namespace PerfLab.Common;

/// <summary>Every exit code perflab returns. Scripts may rely on these values.</summary>
public enum ExitCode
{
    Success = 0,
    /// <summary>The work ran but failed: a measurement failed, a run was incomplete, a check did not hold.</summary>
    Failed = 1,
    /// <summary>The command line or an input file was wrong; nothing was started.</summary>
    Usage = 2,
    /// <summary>Something perflab needs is missing or unusable (binaries, folders, ports, permissions).</summary>
    Environment = 3,
    /// <summary>The target (server, process, database) could not be reached or went away.</summary>
    Unreachable = 4,
    /// <summary>Everything ran, but a threshold (a CI gate: `thresholds:` or `--threshold`) did not hold.</summary>
    ThresholdsFailed = 5,
    /// <summary>Stopped by Ctrl+C; what was measured has been written.</summary>
    Interrupted = 130,
}
