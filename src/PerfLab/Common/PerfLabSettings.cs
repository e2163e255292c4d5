namespace PerfLab.Common;

/// <summary>
/// Every PERFLAB_* environment variable perflab reads, in one place (each also has a command-line option where a user
/// would set it per call; the variables are for scripts, CI and tests).
/// </summary>
public static class PerfLabSettings
{
    /// <summary>perflab's cache folder (noise floors, the managed cluster, built variants, the SUT registry).</summary>
    public const string CacheDir = "PERFLAB_CACHE_DIR";

    /// <summary>The data folder of perflab's own PostgreSQL cluster (also --data-dir).</summary>
    public const string DataDir = "PERFLAB_DATA_DIR";

    /// <summary>The folder of PostgreSQL's server binaries, when `pg_config --bindir` and the Debian folders do not find them.</summary>
    public const string PgBinDir = "PERFLAB_PG_BINDIR";

    /// <summary>An external PostgreSQL to use instead of perflab's own (also --connection-string).</summary>
    public const string ConnectionString = "PERFLAB_CONNECTION_STRING";

    /// <summary>Set by perflab for the shell that starts the SUT: where the SUT's output goes.</summary>
    public const string SutLog = "PERFLAB_SUT_LOG";

    /// <summary>
    /// Set by the ./perflab script before it builds: when the invocation began, in Unix milliseconds, so that a budget
    /// counts the build too (<see cref="Invocation"/>).
    /// </summary>
    public const string InvokedAt = "PERFLAB_INVOKED_AT";

    /// <summary>
    /// Set by perflab for a child invocation of `--invocations`: its share of the budget, in milliseconds, counted from
    /// <see cref="InvokedAt"/>.
    /// </summary>
    public const string InvocationBudget = "PERFLAB_INVOCATION_BUDGET_MS";

    /// <summary>The settings a user may set (the ones a clean test process removes from its children).</summary>
    public static readonly IReadOnlyList<string> UserSettings = [CacheDir, DataDir, PgBinDir, ConnectionString];
}
