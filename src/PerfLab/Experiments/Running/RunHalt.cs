namespace PerfLab.Experiments.Running;

public enum RunHaltKind
{
    /// <summary>Ctrl+C.</summary>
    Interrupted,
    /// <summary>The database stopped answering: no later run could measure anything.</summary>
    DatabaseDown,
    /// <summary>A fault of perflab's own (a bug): what was measured before it is still analysed and written.</summary>
    Fault,
}

/// <summary>Why a whole run ended before every experiment had stopped; <see cref="Reason"/> is what results.json says.</summary>
public sealed record RunHalt(RunHaltKind Kind, string Reason)
{
    public static readonly RunHalt Interrupted = new(RunHaltKind.Interrupted, "interrupted (Ctrl+C)");

    /// <summary>A bug stopped the run: its stack trace goes to <paramref name="logFolder"/>, its one line to the report.</summary>
    public static RunHalt Fault(Exception ex, string logFolder)
    {
        Directory.CreateDirectory(logFolder);
        var file = Path.Combine(logFolder, "perflab-fault.txt");
        File.WriteAllText(file, ex.ToString());
        return new RunHalt(RunHaltKind.Fault,
            $"perflab failed unexpectedly ({ex.GetType().Name}: {ex.Message}); the runs before it are kept; details for a bug report: {file}");
    }

    /// <summary>The halt a run's record calls for, if any: a record of a database that went down stops the whole run.</summary>
    public static RunHalt? After(Results.RunRecord record) =>
        record.FailureKind == Results.FailureKind.DatabaseDown ? new RunHalt(RunHaltKind.DatabaseDown, record.FailureReason ?? "the database went down") : null;
}
