namespace PerfLab.Common;

// One child process to run: what, where, as whom, and how long it may take or stay silent. Output lines go to the
// callbacks as they arrive (stdout and stderr each in order, one line at a time), so a caller can watch for a
// readiness line or keep a log without buffering everything.
internal sealed record ProcessSpec(string FileName, IReadOnlyList<string> Arguments)
{
    public string? WorkingDirectory { get; init; }

    // Run as this system user (through runuser): PostgreSQL's programs refuse to run as root.
    public string? RunAsUser { get; init; }

    public IReadOnlyDictionary<string, string> Environment { get; init; } = new Dictionary<string, string>();

    // The longest the whole run may take; past it the tree is killed and a PerfLabException names it.
    public TimeSpan? Timeout { get; init; }

    // The longest the process may print nothing before it is taken for hung and its tree is killed.
    public TimeSpan? SilenceLimit { get; init; }

    public Action<string>? OnOutputLine { get; init; }
    public Action<string>? OnErrorLine { get; init; }

    // The command as an error message names it: the program and its first few arguments.
    public string ShortCommand => string.Join(" ", new[] { Path.GetFileName(FileName) }.Concat(Arguments.Take(3)));
}
