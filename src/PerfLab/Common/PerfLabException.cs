namespace PerfLab.Common;

/// <summary>
/// A failure to report to the user as one clear message (no stack trace): what went wrong and what to do.
/// </summary>
public sealed class PerfLabException(string message, ExitCode exitCode = ExitCode.Failed, Exception? inner = null)
    : Exception(message, inner)
{
    public ExitCode ExitCode { get; } = exitCode;
}
