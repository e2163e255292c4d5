using System.Text.Json;
using PerfLab.Database;

namespace PerfLab.Tests.Database;

// `perflab db` end to end: real initdb, pg_ctl and PostgreSQL, through the built CLI.
public sealed class DbLifecycleTests
{
    [Fact]
    public async Task DbVerbs_StartStatusStopStartSeedReset_WorkInSequence()
    {
        using var folder = new TempFolder();
        var dataDir = Path.Combine(folder.Path, "pg");
        try
        {
            var status = await StatusAsync(dataDir);
            Assert.False(status.GetProperty("initialized").GetBoolean());
            Assert.False(status.GetProperty("running").GetBoolean());

            var start = await PerfLabProcess.RunAsync("db", "start", "--data-dir", dataDir);
            Assert.True(start.ExitCode == 0, start.ToString());
            Assert.Contains("initialized a new PostgreSQL", start.Stdout);
            Assert.Contains("Host=127.0.0.1;Port=", start.Stdout);

            status = await StatusAsync(dataDir);
            Assert.True(status.GetProperty("running").GetBoolean());
            var port = status.GetProperty("port").GetInt32();
            Assert.Equal("not seeded (database missing)", status.GetProperty("schemaState").GetString());
            Assert.Contains($"Port={port}", start.Stdout);

            var again = await PerfLabProcess.RunAsync("db", "start", "--data-dir", dataDir);
            Assert.True(again.ExitCode == 0, again.ToString());
            Assert.Contains("already running", again.Stdout);

            var stop = await PerfLabProcess.RunAsync("db", "stop", "--data-dir", dataDir);
            Assert.True(stop.ExitCode == 0, stop.ToString());
            Assert.Contains("stopped", stop.Stdout);
            status = await StatusAsync(dataDir);
            Assert.False(status.GetProperty("running").GetBoolean());
            Assert.True(status.GetProperty("initialized").GetBoolean());

            var stopAgain = await PerfLabProcess.RunAsync("db", "stop", "--data-dir", dataDir);
            Assert.True(stopAgain.ExitCode == 0, stopAgain.ToString());
            Assert.Contains("not running", stopAgain.Stdout);

            // Started again, it keeps the port chosen at first start.
            var restart = await PerfLabProcess.RunAsync("db", "start", "--data-dir", dataDir);
            Assert.True(restart.ExitCode == 0, restart.ToString());
            Assert.DoesNotContain("initialized", restart.Stdout);
            Assert.Contains($"127.0.0.1:{port}", restart.Stdout);

            var seed = await PerfLabProcess.RunAsync("db", "seed", "--data-dir", dataDir);
            Assert.True(seed.ExitCode == 0, seed.ToString());
            Assert.Contains("Sales.SalesOrderDetail", seed.Stdout);
            Assert.Contains("seeded in", seed.Stdout);
            status = await StatusAsync(dataDir);
            Assert.Equal("current (schema v1)", status.GetProperty("schemaState").GetString());
            var rows = status.GetProperty("rows");
            Assert.Equal(504, rows.GetProperty("Production.Product").GetInt64());
            Assert.Equal(31_465, rows.GetProperty("Sales.SalesOrderHeader").GetInt64());
            Assert.Equal(121_317, rows.GetProperty("Sales.SalesOrderDetail").GetInt64());
            var checksum = await DataChecksums.ReadStoredAsync(ManagedCluster.ConnectionStringFor(port), default);

            var seedAgain = await PerfLabProcess.RunAsync("db", "seed", "--data-dir", dataDir);
            Assert.True(seedAgain.ExitCode == 0, seedAgain.ToString());
            Assert.Contains("already seeded", seedAgain.Stdout);

            var reset = await PerfLabProcess.RunAsync("db", "reset", "--data-dir", dataDir);
            Assert.True(reset.ExitCode == 0, reset.ToString());
            Assert.Contains("dropped and re-seeded", reset.Stdout);
            Assert.Equal(checksum, await DataChecksums.ReadStoredAsync(ManagedCluster.ConnectionStringFor(port), default));

            var text = await PerfLabProcess.RunAsync("db", "status", "--data-dir", dataDir);
            Assert.True(text.ExitCode == 0, text.ToString());
            Assert.Contains("running (pid", text.Stdout);
            Assert.Contains("Sales.SalesOrderDetail 121,317", text.Stdout);
        }
        finally
        {
            await PerfLabProcess.RunAsync("db", "stop", "--data-dir", dataDir);
        }
    }

    [Fact]
    public async Task DbStartAndStop_WithConnectionString_SayThereIsNothingToManage()
    {
        foreach (var verb in new[] { "start", "stop" })
        {
            var result = await PerfLabProcess.RunAsync(
                new Dictionary<string, string> { ["PERFLAB_CONNECTION_STRING"] = "Host=127.0.0.1;Port=1" }, "db", verb);
            Assert.True(result.ExitCode == 0, result.ToString());
            Assert.Contains("nothing to " + verb, result.Stdout);
        }
    }

    [Fact]
    public async Task DbVerbs_Help_DescribesEveryVerb()
    {
        foreach (var verb in new[] { "start", "stop", "status", "seed", "reset" })
        {
            var result = await PerfLabProcess.RunAsync("db", verb, "--help");
            Assert.True(result.ExitCode == 0, result.ToString());
            Assert.Contains("--connection-string", result.Stdout);
            Assert.Contains("--data-dir", result.Stdout);
        }
    }

    private static async Task<JsonElement> StatusAsync(string dataDir)
    {
        var result = await PerfLabProcess.RunAsync("db", "status", "--data-dir", dataDir, "--json");
        Assert.True(result.ExitCode == 0, result.ToString());
        return JsonDocument.Parse(result.Stdout).RootElement.Clone();
    }
}
