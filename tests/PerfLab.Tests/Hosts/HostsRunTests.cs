using System.Text.Json;

namespace PerfLab.Tests.Hosts;

/// <summary>
/// perflab run --hosts end to end: the built-in SUT in an app namespace (its counters read there and streamed back),
/// perflab's PostgreSQL in a db namespace (open to the app's address only), the load from the controller's namespace.
/// Alone (the quiet collection): it starts a cluster,
/// seeds it and runs two variants.
/// </summary>
[Collection(QuietCollection.Name)]
public sealed class HostsRunTests
{
    // The load asks a 20 ms endpoint, not a page of orders: on this busy 2-core machine a fresh SUT's first EF Core
    // query took over 4 s (no request completed in a 2 s warm-up and 2 s window; the JIT busy ~750 ms a second), and
    // the SUT's reading of the db host is shown by /info and pg_hba, which admits the app's address alone.
    private const string Experiment = """
        name: placed
        title: Placed on hosts
        seed: "000"
        reproduces: nothing, a test
        baseline: async
        variants:
          - name: async
            settings: { DataAccess: async }
          - name: sync
            settings: { DataAccess: sync }
        load:
          scenarios:
            - name: forecast
              url: /weatherforecast-async?ms=20
              model: closed
              users: 4
        profiles:
          article: { warmup: 1s, duration: 2s, repeat: 1 }
          quick: { warmup: 1s, duration: 2s, repeat: 1 }
          smoke: { warmup: 1s, duration: 2s, repeat: 1 }
        """;

    [Fact]
    public async Task Run_AppAndDatabaseOnHostsOfTheirOwn_AppReadsTheDbHostAndTheResultNamesEachHost()
    {
        using var lab = NetnsLab.Create(["app", "db"]);
        var (appAddress, dbAddress) = (lab.Hosts["app"].Address, lab.Hosts["db"].Address);
        var experiments = Directory.CreateDirectory(Path.Combine(lab.Folder, "experiments")).FullName;
        await File.WriteAllTextAsync(Path.Combine(experiments, "placed.yaml"), Experiment);
        var hosts = HostsCheckTests.Write(lab, "ssh-config: ./ssh_config\napp: app\ndb: db\nload: [local]\n");
        var output = Path.Combine(lab.Folder, "out");

        var result = await HostsCheckTests.RunInController(lab, "run", "placed", "--experiments", experiments, "--profile", "smoke",
            "--hosts", hosts, "--out", output);

        Assert.True(result.ExitCode == 0, result.ToString());
        using var json = JsonDocument.Parse(await File.ReadAllTextAsync(Path.Combine(output, "results.json")));
        var placed = json.RootElement.GetProperty("provenance").GetProperty("hosts").EnumerateArray()
            .ToDictionary(h => h.GetProperty("role").GetString()!,
                h => (Host: h.GetProperty("host").GetString()!, Address: h.GetProperty("address").GetString()!));
        Assert.Equal(("app", appAddress), placed["app"]);
        Assert.Equal(("db", dbAddress), placed["db"]);
        Assert.Equal("local", placed["load"].Host);
        var runs = json.RootElement.GetProperty("experiments")[0].GetProperty("runs").EnumerateArray().ToList();
        Assert.Equal(2, runs.Count);
        foreach (var run in runs)
        {
            Assert.Equal("Ok", run.GetProperty("status").GetString());
            // The app, in its namespace, read the database at the db namespace's address (pg_hba admits the app's alone).
            var server = run.GetProperty("sutInfo").GetProperty("databaseServer").GetString();
            Assert.StartsWith(dbAddress + ":", server, StringComparison.Ordinal);
            var forecast = run.GetProperty("scenarios")[0];
            Assert.True(forecast.GetProperty("requests").GetInt64() > 0, forecast.ToString());
            Assert.True(forecast.GetProperty("rps").GetDouble() > 0, forecast.ToString());
            Assert.Equal(0, forecast.GetProperty("errors").GetInt64());
            // Counters read over EventPipe in the app namespace and streamed back: a SUT's working set, in MB.
            Assert.InRange(run.GetProperty("counters").GetProperty("working-set").GetDouble(), 10, 4000);
            // Its CPU clock read on its host at the window's edges: serving requests cost it some CPU.
            Assert.True(run.GetProperty("cost").GetProperty("appCpuSeconds").GetDouble() > 0, run.GetProperty("cost").ToString());
        }
        var report = await File.ReadAllTextAsync(Path.Combine(output, "report.md"));
        Assert.Contains($"app: app ({appAddress}", report, StringComparison.Ordinal);
        Assert.Contains($"db: db ({dbAddress}", report, StringComparison.Ordinal);
        // The SUTs and PostgreSQL ended with their sessions: each host holds its sshd alone.
        await AssertNothingLeftAsync(lab, "app", "db");
    }

    [Fact]
    public async Task Run_DatabaseOnAHostButAppHere_UsageErrorBeforeAnythingStarts()
    {
        using var lab = NetnsLab.Create(["db"]);
        var hosts = HostsCheckTests.Write(lab, "ssh-config: ./ssh_config\napp: local\ndb: db\nload: [local]\n");

        var result = await HostsCheckTests.RunInController(lab, "run", "sync-async", "--profile", "smoke", "--hosts", hosts,
            "--out", Path.Combine(lab.Folder, "out"));

        Assert.True(result.ExitCode == 2, result.ToString());
        Assert.Contains("PostgreSQL on db host 'db' is open to the app's host only, but the app runs here", result.Stderr,
            StringComparison.Ordinal);
        Assert.Empty(lab.ProcessesBesidesSshd("db"));
    }

    private static async Task AssertNothingLeftAsync(NetnsLab lab, params string[] hosts)
    {
        var deadline = DateTime.UtcNow.AddSeconds(15);
        while (hosts.Any(h => lab.ProcessesBesidesSshd(h).Count > 0) && DateTime.UtcNow < deadline)
        {
            await Task.Delay(100);
        }
        Assert.All(hosts, h => Assert.Empty(lab.ProcessesBesidesSshd(h)));
    }
}
