using System.Diagnostics;
using Npgsql;
using PerfLab.Apps;
using PerfLab.Common;
using PerfLab.Database;
using PerfLab.Load;
using PerfLab.SutProcesses;
using PerfLab.Testing;
using Xunit.Abstractions;
using PerfLab.Experiments.Running.Measuring;

namespace PerfLab.Tests.Experiments.Running;

/// <summary>
/// CPU per request against a real SUT whose every request costs a known CPU time (Sut:ExtraWorkMicroseconds spins on
/// the thread's CPU clock), and against a PostgreSQL backend made to burn CPU. Kestrel's own work per /plaintext
/// request adds to the injected cost: 0.1 to 0.3 ms at thousands of requests per second, but 0.5 to 1.7 ms at a few
/// dozen on this 2-core machine shared with a load average of 40 to 90 (a cold path, a thread woken per request); a
/// 20 ms spin keeps that inside the 10 % allowed. Run alone: the meter charges this test process with every backend that
/// serves it, and other test classes' busy connections would be counted as its.
/// </summary>
[Collection(QuietCollection.Name)]
public sealed class CostMeterTests(PostgresFixture postgres, ITestOutputHelper output) : IClassFixture<PostgresFixture>
{
    private const int SpinMicroseconds = 20_000;

    // Few users: a request in flight at a window's edge has spun partly outside it; with two, that is at most two
    // requests' worth either way, against the hundred or more the window completes.
    private const int Users = 2;

    [Fact]
    public async Task Take_KnownCpuPerRequest_AtLeastTheKnownCostAndNoMoreThanHalfAgain()
    {
        var (ms, rps) = await MeasureAsync();

        output.WriteLine($"quiet: {ms:0.000} ms per request, {rps:0} RPS");
        // Every completed request spun 20 ms of CPU inside the window (the edges' partial requests cancel within 5 %).
        // Kestrel's own work comes on top: 0.8 ms (+4 %) at a load average of 70 here, 6 to 8 ms (+30 to 40 %) at 110 to
        // 150 (docs/benchmarks/capacity.md), so the 10 % the figure meets on a calmer machine is not asserted.
        Assert.InRange(ms, SpinMicroseconds / 1000.0 * 0.95, SpinMicroseconds / 1000.0 * 1.5);
    }

    [Fact]
    public async Task Take_CpuHogOnTheMachine_TheHogIsNotChargedToTheApp()
    {
        // A busy loop taking a core, bounded in time whatever happens to this test, and killed when it ends.
        var hogs = new[] { Process.Start(new ProcessStartInfo("timeout", ["30", "sh", "-c", "while :; do :; done"]))! };
        try
        {
            var (ms, rps) = await MeasureAsync();

            output.WriteLine($"with a hog: {ms:0.000} ms per request, {rps:0} RPS");
            // The hog burns most of a core, hundreds of milliseconds per request at these rates: none of it may be
            // charged to the app. The app's own work per request does grow beside it (this machine, load average 80,
            // one hog: 29.7 ms for a 20 ms spin, against 20.8 quiet; docs/benchmarks/capacity.md), so the bound is not 10 %.
            Assert.InRange(ms, SpinMicroseconds / 1000.0 * 0.95, SpinMicroseconds / 1000.0 * 2);
        }
        finally
        {
            foreach (var hog in hogs)
            {
                hog.Kill(entireProcessTree: true);
                await hog.WaitForExitAsync();
                hog.Dispose();
            }
        }
    }

    [Fact]
    public async Task Take_BackendBurningCpu_CountedForTheAppHoldingItsConnectionOnly()
    {
        var connectionString = await postgres.CreateDatabaseAsync();
        var server = await PostgresBackends.FindAsync(connectionString, CancellationToken.None)
            ?? throw new Xunit.Sdk.XunitException("the test cluster's postmaster was not found");
        await using var connection = await PostgresConnections.OpenAsync(connectionString, CancellationToken.None);
        var backend = Convert.ToInt32(await new NpgsqlCommand("SELECT pg_backend_pid()", connection).ExecuteScalarAsync());
        using var stranger = Process.Start(new ProcessStartInfo("sleep", ["30"]))!;
        try
        {
            // This test process holds the connection, so it is the app; a process without one must be charged nothing.
            var ours = new CostMeter(Environment.ProcessId, server);
            var theirs = new CostMeter(stranger.Id, server);
            var ticksBefore = ProcStat.Read($"/proc/{backend}/stat").CpuTicks;
            ours.WindowStarted();
            theirs.WindowStarted();
            await new NpgsqlCommand("SELECT count(*) FROM generate_series(1, 3000000)", connection).ExecuteScalarAsync();
            ours.WindowEnded();
            theirs.WindowEnded();
            var ticks = ProcStat.Read($"/proc/{backend}/stat").CpuTicks - ticksBefore;

            var window = ours.Take(requests: 1)!;
            output.WriteLine($"backend {backend}: {window.DatabaseCpuSeconds * 1000:0.0} ms by its clock, {ticks * 10} ms by /proc ticks");
            // The kernel's tick count of the same backend, read independently: equal within two ticks (10 ms each).
            Assert.InRange(window.DatabaseCpuSeconds!.Value * 1000, ticks * 10 - 20, ticks * 10 + 20);
            Assert.True(window.DatabaseCpuSeconds > 0.05, "the query burned at least 50 ms");
            Assert.Equal(0, theirs.Take(requests: 1)!.DatabaseCpuSeconds);
        }
        finally
        {
            stranger.Kill();
            await stranger.WaitForExitAsync();
        }
    }

    private static async Task<(double MsPerRequest, double Rps)> MeasureAsync()
    {
        var launch = new SutLaunch(new Dictionary<string, string> { ["ExtraWorkMicroseconds"] = SpinMicroseconds.ToString(System.Globalization.CultureInfo.InvariantCulture) },
            // Fully optimized code from the start: no tier-up compiling in the background during the short window; and
            // pool threads that park at once when idle rather than spin: at a few dozen requests a second, their
            // spinning between requests added 2 to 4 ms per request on this machine.
            new Dictionary<string, string> { ["DOTNET_TieredCompilation"] = "0", ["DOTNET_ThreadPool_UnfairSemaphoreSpinLimit"] = "0" }, null);
        await using var sut = await new BuiltInSut(file => launch with { LogFile = file })
            .StartAsync(Path.Combine(Path.GetTempPath(), "perflab-tests", $"sut-{Guid.NewGuid():N}.log"), null, CancellationToken.None);
        var meter = new CostMeter(sut.Pid, database: null);
        var plan = new LoadPlan([new ScenarioPlan("cpu", new ClosedModel(Users), new RequestFeed(new Uri(sut.BaseAddress, "/plaintext").ToString()))],
            TimeSpan.FromSeconds(4), TimeSpan.FromSeconds(1), TimeSpan.FromSeconds(10)) { Probe = meter };

        var load = await LoadEngine.RunAsync(plan);
        var requests = load.Scenarios.Sum(s => s.Requests);
        var window = meter.Take(requests) ?? throw new Xunit.Sdk.XunitException("no window measured");

        // The meter's edges are the engine's window: the same seconds, within the moments between the two readings.
        Assert.InRange(window.Seconds, load.MeasuredSeconds - 0.2, load.MeasuredSeconds + 0.2);
        Assert.Null(window.DatabaseCpuSeconds);
        return (window.MsPerRequest!.Value, requests / window.Seconds);
    }
}
