namespace PerfLab.Database;

/// <summary><c>perflab db seed</c> and <c>reset</c>: seed the server perflab is pointed at, which must be running.</summary>
public static class DatabaseSeeding
{
    /// <summary>Seeds the external server, else perflab's running cluster (see <see cref="Seeder.SeedAsync"/>).</summary>
    public static Task<SeedResult> SeedAsync(string? connectionString, string? dataDir,
        IProgress<SeedProgress>? progress, CancellationToken ct) =>
        Seeder.SeedAsync(RunningTarget(connectionString, dataDir, "seed"), progress, ct);

    /// <summary>Drops and seeds again: the whole database on perflab's cluster, only perflab's schemas on an
    /// external server.</summary>
    public static Task<SeedResult> ResetAsync(string? connectionString, string? dataDir,
        IProgress<SeedProgress>? progress, CancellationToken ct)
    {
        var external = DatabaseTarget.ExternalConnectionString(connectionString);
        var target = RunningTarget(external, dataDir, "reset");
        // Never drop a database perflab did not create: on an external server only its schemas go.
        return Seeder.ResetAsync(target, dropDatabase: external is null, progress, ct);
    }

    private static string RunningTarget(string? connectionString, string? dataDir, string verb) =>
        DatabaseTarget.Server(connectionString, dataDir,
            $", so there is nothing to {verb}; run `perflab db start` first (or pass --connection-string).");
}
