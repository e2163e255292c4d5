using System.CommandLine;
using PerfLab.Database;

namespace PerfLab.Cli;

/// <summary>The database options every verb that touches PostgreSQL shares.</summary>
public static class DbOptions
{
    public static Option<string?> ConnectionString() => new("--connection-string")
    {
        Description = "Use this external PostgreSQL instead of perflab's own (Npgsql syntax, e.g. " +
            $"\"Host=db;Username=me;Password=...;Database=adventureworks\"; also: env {DatabaseTarget.ConnectionStringVariable}).",
    };

    public static Option<string?> DataDir() => new("--data-dir")
    {
        Description = $"Data folder of perflab's own PostgreSQL (also: env {ManagedCluster.DataDirVariable}; "
            + $"default: {ManagedCluster.DefaultDataDir()}).",
    };
}
