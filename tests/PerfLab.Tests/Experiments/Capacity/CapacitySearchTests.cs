using System.Text.Json;
using PerfLab.Common;
using PerfLab.Experiments.Definitions;
using PerfLab.Results;
using PerfLab.SutProcesses;
using PerfLab.Experiments.Running.Capacity;

namespace PerfLab.Tests.Experiments.Capacity;

/// <summary>
/// The capacity search against the SUT's endpoint of known capacity (K slots of S ms: K·1000/S RPS), real Kestrel on
/// loopback in a process of its own. Steps are short (1.5 s after 0.5 s of warm-up) to keep the class quick; the
/// ranges allow for timer overshoot of Task.Delay on a busy machine.
/// </summary>
[Collection(CpuHeavy.A)]
public sealed class CapacitySearchTests
{
    private static readonly CapacityStepSettings ShortSteps = new(TimeSpan.FromSeconds(1.5), TimeSpan.FromSeconds(0.5));

    private static async Task<SutProcess> StartSutAsync() =>
        await SutProcess.StartAsync(SutLaunch.Default(connectionString: null) with
        {
            LogFile = Path.Combine(TestCaches.NewFolder(), "sut.log"),
        });

    [Fact]
    public async Task Capacity_FourSlotsOf20ms_GivesAnIntervalMeeting180To210AsJsonAndGatesItsLowerEnd()
    {
        await using var sut = await StartSutAsync();
        var url = new Uri(sut.BaseAddress, "/diagnostics/capacity?slots=4&ms=20").ToString();

        var chart = Path.Combine(TestCaches.NewFolder(), "capacity.html");
        var cli = await PerfLabProcess.RunAsync("capacity", url, "--slo", "p99<100ms", "--from", "100", "-d", "1.5s", "-w", "0.5s", "--json", "--html", chart,
            "--threshold", "capacity>=50", "--threshold", "capacity>=100000");

        var json = JsonDocument.Parse(cli.Stdout).RootElement;
        var steps = json.GetProperty("steps").EnumerateArray().ToList();
        // The answer gated: 50 RPS sustained passes, 100000 cannot, and the failed gate makes the exit 5.
        Assert.Matches(@"gate capacity>=100000: (\d+(\.\d)? RPS \(the interval's lower end\)|no capacity found \(no rate held every time it was tried\)), FAILED", cli.Stderr);
        // Rising steps double from --from (100, 200 ...) before the bisection narrows the bracket.
        Assert.Equal(100, steps[0].GetProperty("targetRps").GetDouble());
        var busy = steps.Any(s => s.TryGetProperty("machineLoad", out var load) && load.ValueKind == JsonValueKind.Number && MachineLoad.IsBusy(load.GetDouble()));
        if (busy)
        {
            // A machine whose other work keeps every core busy may break even the lowest rate: the answer must say so.
            Assert.Contains("machine may have been the limit", json.GetProperty("summary").GetString());
        }
        if (!busy || json.GetProperty("outcome").GetString() == "found")
        {
            Assert.True(cli.ExitCode == 5, cli.ToString());
            Assert.Equal("found", json.GetProperty("outcome").GetString());
            var capacity = json.GetProperty("capacityRps").GetDouble();
            var low = json.GetProperty("capacityLowRps").GetDouble();
            var high = json.GetProperty("capacityHighRps") is { ValueKind: JsonValueKind.Number } h ? h.GetDouble() : double.PositiveInfinity;
            // The gate reads the interval's lower end (0 when a stall broke every rate once, which fails it).
            Assert.Contains(FormattableString.Invariant($"gate capacity>=50: {low:0.#} RPS (the interval's lower end), ")
                + (low >= 50 ? "passed" : "FAILED"), cli.Stderr, StringComparison.Ordinal);
            Assert.InRange(capacity, low, high);
            // Bounds a stall cannot break: a rate that held every time it was tried cannot lie above what 4 slots of 20 ms
            // serve (200 RPS, 5 % of bracket above it at most), and the upper end is a rate that broke every time, right after
            // the rate below held, on a machine that was not busy: a busy machine leaves it open instead. So the interval
            // meets 180-210 on a quiet and on a busy machine alike.
            Assert.InRange(low, 0, 210);
            Assert.True(high >= 180, $"upper end {high}");
            // The boundary was tried again, its two rates back to back (more when a try disagreed), at most the confirming
            // steps of each round: a second round rises on when no rate above the one that held broke every time.
            var rounds = 1 + steps.SkipWhile(s => s.GetProperty("phase").GetString() != "confirm")
                .Count(s => s.GetProperty("phase").GetString() == "step");
            Assert.InRange(rounds, 1, CapacitySearch.MaxRounds);
            Assert.InRange(steps.Count(s => s.GetProperty("phase").GetString() == "confirm"), 2, rounds * CapacityRange.MaxConfirmations);
            Assert.Contains(", interval [", cli.Stderr, StringComparison.Ordinal);
            Assert.Contains(steps, s => s.GetProperty("phase").GetString() == "bisect");
            // The answer is a rate that was sent: the step credited with it sent (and completed) at least that much.
            Assert.Contains(steps, s => s.GetProperty("holds").GetBoolean() && s.GetProperty("sentRps").GetDouble() >= capacity - 1e-9);
            Assert.Contains("holds at", cli.Stderr);
        }
        Assert.Contains("step    1", cli.Stderr);
        // The hockey stick: one dot per step, the SLO bound as a dashed line.
        var html = await File.ReadAllTextAsync(chart);
        Assert.Equal(steps.Count, html.Split("<circle ").Length - 1);
        Assert.Contains(">SLO 100 ms</text>", html);
    }

    [Fact]
    public async Task Capacity_EightSlotsOf20ms_FindsAboutTwiceAsMuchOrNamesTheGenerator()
    {
        await using var sut = await StartSutAsync();
        var url = new Uri(sut.BaseAddress, "/diagnostics/capacity?slots=8&ms=20").ToString();
        var slo = CapacitySlo.Parse("p99<100ms", null);
        var probe = CapacityProbe.ForUrl(url, slo, ShortSteps);

        var result = await CapacitySearch.RunAsync(url, slo, new CapacityRange(200, 2_000), ShortSteps,
            async (i, phase, rate, ct) => (await probe.RunAsync(i, phase, rate, ct)).Step, null, CancellationToken.None);

        // Never more than the endpoint can serve (400 RPS, 5 % of bracket above it at most).
        Assert.InRange(result.CapacityRps ?? 0, 0, 420);
        // On a machine whose other work keeps every core busy the search may not get there: it must then say so.
        if (result.Outcome == CapacityOutcome.GeneratorLimit || result.Steps.Any(s => MachineLoad.IsBusy(s.MachineLoad)))
        {
            Assert.True(result.Summary.Contains("generator was the limit", StringComparison.Ordinal)
                || result.Summary.Contains("machine may have been the limit", StringComparison.Ordinal), result.Summary);
            if (result.Outcome != CapacityOutcome.Found)
            {
                return;
            }
        }
        Assert.True(result.Outcome == CapacityOutcome.Found, result.Summary);
        if (!result.Steps.Any(s => MachineLoad.IsBusy(s.MachineLoad)))
        {
            Assert.InRange(result.CapacityRps!.Value, 340, 420);
        }
    }

    [Fact]
    public async Task Capacity_TargetErrorsAtEveryRate_SaysSoAndExitsOne()
    {
        await using var sut = await StartSutAsync();
        var url = new Uri(sut.BaseAddress, "/diagnostics/capacity?slots=0").ToString();   // 400 for every request

        var cli = await PerfLabProcess.RunAsync("capacity", url, "--slo", "p99<100ms", "--from", "50", "-d", "1s", "-w", "0s");

        Assert.True(cli.ExitCode == (int)ExitCode.Failed, cli.ToString());
        Assert.Contains("breaks already at the lowest rate tried, 50 RPS", cli.Stdout);
        Assert.Contains("errors 100 % break errors<1% (http-400", cli.Stdout);
    }

    [Fact]
    public async Task Capacity_NothingListens_ExitsUnreachable()
    {
        var cli = await PerfLabProcess.RunAsync("capacity", $"http://127.0.0.1:{LoopbackPorts.PickFree()}/", "--slo", "p99<100ms", "-d", "1s");
        Assert.True(cli.ExitCode == (int)ExitCode.Unreachable, cli.ToString());
        Assert.Contains("connection refused", cli.Stderr);
    }

    [Theory]
    [InlineData(new[] { "--slo", "p99 under 100ms" }, "--slo")]
    [InlineData(new[] { "--slo", "p99<100" }, "a latency needs a unit")]
    [InlineData(new[] { "--slo", "p99>100ms" }, "upper bound on a latency")]
    [InlineData(new[] { "--slo", "p99<100ms", "--errors", "lots" }, "--errors")]
    [InlineData(new[] { "--slo", "p99<100ms", "--from", "500", "--max", "100" }, "--max (100) is below --from (500)")]
    [InlineData(new[] { "--slo", "p99<100ms", "-d", "soon" }, "is not a duration")]
    public async Task Capacity_BadInput_ExitsTwoNamingWhatIsWrong(string[] options, string message)
    {
        var cli = await PerfLabProcess.RunAsync(["capacity", "http://127.0.0.1:9/", .. options]);
        Assert.True(cli.ExitCode == (int)ExitCode.Usage, cli.ToString());
        Assert.Contains(message, cli.Stderr);
    }
}
