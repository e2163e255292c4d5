namespace PerfLab.Experiments.Running;

public enum RunHaltKind
{
    /// <summary>Ctrl+C.</summary>
    Interrupted,
    /// <summary>The database stopped answering: no later run could measure anything.</summary>
    DatabaseDown,
}

/// <summary>Why a whole run ended before every experiment had stopped; <see cref="Reason"/> is what results.json says.</summary>
public sealed record RunHalt(RunHaltKind Kind, string Reason)
{
    public static readonly RunHalt Interrupted = new(RunHaltKind.Interrupted, "interrupted (Ctrl+C)");

    /// <summary>The halt a run's record calls for, if any: a record of a database that went down stops the whole run.</summary>
    public static RunHalt? After(Results.RunRecord record) =>
        record.FailureKind == Results.FailureKind.DatabaseDown
            ? new RunHalt(RunHaltKind.DatabaseDown, record.FailureReason ?? "the database went down")
            : null;
}
