using System.CommandLine;
using System.Globalization;
using System.Text.Json;
using System.Text.Json.Serialization;
using PerfLab.Common;
using PerfLab.Database;

namespace PerfLab.Cli;

/// <summary><c>perflab db start | stop | status | seed | reset</c>: perflab's own PostgreSQL, or an external one.</summary>
public static class DbCommand
{
    private static readonly JsonSerializerOptions JsonOptions = new()
    {
        WriteIndented = true,
        PropertyNamingPolicy = JsonNamingPolicy.CamelCase,
        DefaultIgnoreCondition = JsonIgnoreCondition.Never,
        // Connection strings and version strings are printed as they are ("15.18 (Debian 15.18-0+deb12u1)").
        Encoder = System.Text.Encodings.Web.JavaScriptEncoder.UnsafeRelaxedJsonEscaping,
    };

    public static Command Create()
    {
        var command = new Command("db",
            "Manage the PostgreSQL that the system under test reads: perflab's own private cluster, or an external " +
            "server given with --connection-string.");
        command.Subcommands.Add(CreateStart());
        command.Subcommands.Add(CreateStop());
        command.Subcommands.Add(CreateStatus());
        command.Subcommands.Add(CreateSeed());
        command.Subcommands.Add(CreateReset());
        return command;
    }

    private static Option<string?> BinDirOption() => new("--pg-bindir")
    {
        Description = $"Folder holding initdb, pg_ctl and postgres (env {PostgresBinaries.BinDirVariable}; default: the " +
            "newest /usr/lib/postgresql/N/bin, then PATH).",
    };

    private static Command CreateStart()
    {
        var dataDir = DbOptions.DataDir();
        var connection = DbOptions.ConnectionString();
        var binDir = BinDirOption();
        var port = new Option<int?>("--port")
        {
            Description = "Port on 127.0.0.1 (default: the one chosen at first start, or a free one).",
        };
        port.Check(v => v is not { } p || (p >= 1 && p <= 65535), "--port must be between 1 and 65535.");
        var command = new Command("start",
            "Initialize perflab's PostgreSQL cluster if needed, start it, and print its connection string.")
        {
            dataDir, port, binDir, connection,
        };
        command.SetAction(async (ParseResult pr, CancellationToken ct) =>
        {
            if (NothingToManage(pr.GetValue(connection), "start"))
            {
                return (int)ExitCode.Success;
            }
            var cluster = new ManagedCluster(pr.GetValue(dataDir), pr.GetValue(binDir));
            var result = await cluster.StartAsync(pr.GetValue(port), ct);
            var s = result.Status;
            if (result.Initialized)
            {
                Console.WriteLine($"initialized a new PostgreSQL {s.MajorVersion} cluster in {s.DataDir}");
            }
            Console.WriteLine(result.WasRunning
                ? Invariant($"already running on 127.0.0.1:{s.Port} (pid {s.Pid}, data folder {s.DataDir})")
                : Invariant($"started on 127.0.0.1:{s.Port} (pid {s.Pid}, data folder {s.DataDir})"));
            Console.WriteLine(s.ConnectionString);
            return (int)ExitCode.Success;
        });
        return command;
    }

    private static Command CreateStop()
    {
        var dataDir = DbOptions.DataDir();
        var connection = DbOptions.ConnectionString();
        var binDir = BinDirOption();
        var command = new Command("stop", "Stop perflab's PostgreSQL cluster (its data stays).")
        {
            dataDir, binDir, connection,
        };
        command.SetAction(async (ParseResult pr, CancellationToken ct) =>
        {
            if (NothingToManage(pr.GetValue(connection), "stop"))
            {
                return (int)ExitCode.Success;
            }
            var cluster = new ManagedCluster(pr.GetValue(dataDir), pr.GetValue(binDir));
            Console.WriteLine(await cluster.StopAsync(ct)
                ? $"stopped (data folder {cluster.DataDir})"
                : $"not running (data folder {cluster.DataDir}); nothing to stop");
            return (int)ExitCode.Success;
        });
        return command;
    }

    private static Command CreateStatus()
    {
        var dataDir = DbOptions.DataDir();
        var connection = DbOptions.ConnectionString();
        var json = new Option<bool>("--json") { Description = "Print the status as JSON, for scripts." };
        var command = new Command("status",
            "Show whether the database runs, where, which PostgreSQL and schema version, and how many rows it holds.")
        {
            dataDir, connection, json,
        };
        command.SetAction(async (ParseResult pr, CancellationToken ct) =>
        {
            var report = await DatabaseStatus.ReadAsync(pr.GetValue(connection), pr.GetValue(dataDir), ct);
            if (pr.GetValue(json))
            {
                Console.WriteLine(JsonSerializer.Serialize(report, JsonOptions));
            }
            else
            {
                PrintStatus(report);
            }
            return report.Error is null ? (int)ExitCode.Success : (int)ExitCode.Unreachable;
        });
        return command;
    }

    private static Command CreateSeed()
    {
        var dataDir = DbOptions.DataDir();
        var connection = DbOptions.ConnectionString();
        var command = new Command("seed",
            "Create the adventureworks database and load the deterministic AdventureWorks-shaped data (504 products, " +
            "31,465 orders, 121,317 order lines). Does nothing on a current database; re-seeds a stale one.")
        {
            dataDir, connection,
        };
        command.SetAction(async (ParseResult pr, CancellationToken ct) =>
        {
            var result = await DatabaseSeeding.SeedAsync(pr.GetValue(connection), pr.GetValue(dataDir), Progress(), ct);
            PrintSeedResult(result);
            return (int)ExitCode.Success;
        });
        return command;
    }

    private static Command CreateReset()
    {
        var dataDir = DbOptions.DataDir();
        var connection = DbOptions.ConnectionString();
        var command = new Command("reset",
            "Drop the adventureworks database and seed it again (on an external server: drop perflab's schemas " +
            "in the given database and seed them again).")
        {
            dataDir, connection,
        };
        command.SetAction(async (ParseResult pr, CancellationToken ct) =>
        {
            var result = await DatabaseSeeding.ResetAsync(pr.GetValue(connection), pr.GetValue(dataDir), Progress(), ct);
            PrintSeedResult(result);
            return (int)ExitCode.Success;
        });
        return command;
    }

    private static bool NothingToManage(string? connectionString, string verb)
    {
        if (DatabaseTarget.ExternalConnectionString(connectionString) is null)
        {
            return false;
        }
        Console.WriteLine($"an external PostgreSQL is configured (--connection-string or " +
            $"{DatabaseTarget.ConnectionStringVariable}); perflab has nothing to {verb}.");
        return true;
    }

    private static Progress<SeedProgress> Progress() => new InlineProgress<SeedProgress>(p =>
        Console.WriteLine(Invariant($"  {p.Step,-28} {p.Rows,9:N0} rows {p.Elapsed.TotalSeconds,7:0.0} s")));

    private static void PrintSeedResult(SeedResult result)
    {
        var elapsed = result.Elapsed.TotalSeconds.ToString("0.0", CultureInfo.InvariantCulture);
        Console.WriteLine(result.Outcome switch
        {
            SeedOutcome.AlreadyCurrent =>
                $"database {result.Database} is already seeded (schema v{result.SchemaVersion}); nothing to do",
            SeedOutcome.Reseeded when result.PreviousSchemaVersion is { } old && old != result.SchemaVersion =>
                $"database {result.Database} was stale (schema v{old}, perflab expects v{result.SchemaVersion}); " +
                $"dropped and re-seeded in {elapsed} s",
            SeedOutcome.Reseeded => $"database {result.Database} dropped and re-seeded in {elapsed} s",
            _ => $"database {result.Database} seeded in {elapsed} s",
        });
        Console.WriteLine($"checksum {result.Checksum}");
    }

    private static void PrintStatus(DatabaseStatus r)
    {
        void Line(string label, string? value) => Console.WriteLine($"{label,-18} {value ?? "-"}");
        if (r.Managed)
        {
            Line("cluster", r.Running ? Invariant($"running (pid {r.Pid})")
                : r.Initialized == true ? "not running (run `perflab db start`)"
                : "not initialized (run `perflab db start`)");
            Line("data folder", r.DataDir);
            Line("port", r.Port?.ToString(CultureInfo.InvariantCulture));
        }
        else
        {
            Line("server", r.Error is null ? "external, reachable" : "external, unreachable");
        }
        Line("PostgreSQL", r.PostgresVersion);
        Line("connection string", r.ConnectionString);
        if (r.Error is not null)
        {
            Line("error", r.Error);
        }
        if (r.SchemaState is not null)
        {
            Line("database", r.Database);
            Line("schema", r.SchemaState);
            Line("rows", string.Join(", ", r.Rows!.Select(kv => Invariant($"{kv.Key} {kv.Value:N0}"))));
            if (r.Checksum is not null)
            {
                Line("checksum", r.Checksum);
            }
        }
    }

    private static string Invariant(FormattableString s) => s.ToString(CultureInfo.InvariantCulture);
}
