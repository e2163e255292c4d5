using System.Diagnostics;
using PerfLab.Common;
using PerfLab.Load;

namespace PerfLab.Tests.Load;

public sealed class LoadEngineTests
{
    private static LoadPlan Plan(LoadModel model, Uri url, TimeSpan duration, long? count = null, TimeSpan? warmup = null, TimeSpan? timeout = null) =>
        new([new ScenarioPlan("test", model, new RequestFeed(url.ToString())) { MaxRequests = count }], duration, warmup ?? TimeSpan.Zero, timeout ?? TimeSpan.FromSeconds(5));

    [Fact]
    public async Task RunAsync_ClosedModelAgainstFixed50msDelay_ReportsPercentilesNearTheDelay()
    {
        await using var server = await TestServer.StartAsync();
        var result = await LoadEngine.RunAsync(Plan(new ClosedModel(8), server.Url("/delay?ms=50"), TimeSpan.FromSeconds(3), warmup: TimeSpan.FromSeconds(1)));

        var s = Assert.Single(result.Scenarios);
        Assert.False(result.Incomplete, result.IncompleteReason);
        Assert.Equal(0, s.Errors.Total);
        // The server's Task.Delay may fire up to a timer tick early (its clock is Linux's coarse monotonic clock, 4 ms
        // at HZ=250: a minimum of 46.9 ms was seen), and the histogram keeps 3 significant digits. A stalled host only
        // adds to latencies, so the lower bounds hold anywhere; the median stays under two delays unless more than half
        // the run stalls, and a latency counted from the wrong moment (the run's start, a whole connection) is far above.
        Assert.InRange(s.Latency.P50Ms, 49, 100);
        Assert.InRange(s.Latency.MinMs, 45, 70);
        Assert.True(s.Latency.MeanMs >= 49, $"mean {s.Latency.MeanMs} ms");
        Assert.True(s.Latency.P99Ms >= s.Latency.P50Ms);
        // Every latency counted lies inside the window or reaches back at most the longest one before it, and each of
        // the 8 users has one request at a time: the latencies add up to at most 8 x (window + max), however long a
        // stall made them. A latency counted from before its send (a queue, the run's start) breaks this.
        var windowMs = (result.EndedUtc - result.MeasuredFromUtc).TotalMilliseconds;
        Assert.True(s.Latency.MeanMs * s.Requests <= 8 * (windowMs + s.Latency.MaxMs),
            $"{s.Requests} x {s.Latency.MeanMs} ms in a {windowMs} ms window, max {s.Latency.MaxMs} ms");
        // 8 users at ~50 ms each: at most about 160 req/s (a stall only lowers it). That they really overlapped is
        // counted by the server, where a stalled client cannot change it: most of them at once (one after another
        // would be 1), and never more than 8 (a closed user has one request at a time).
        Assert.InRange(s.RequestsPerSecond, 1, 165);
        Assert.InRange(s.Requests, 1, 500);
        Assert.InRange(server.MostInFlight, 5, 8);
        // The warm-up second is in the timeline, flagged, and outside the statistics; the window opens after one
        // warm-up, not two (a stall at its end may open it late, by less than the second it lasted).
        Assert.InRange((result.MeasuredFromUtc - result.StartedUtc).TotalSeconds, 0.95, 1.9);
        Assert.Contains(s.Timeline, p => p.Warmup);
        // The warm-up's answers are not counted (about 160 of them on a quiet machine; 49 seen with the whole suite and
        // three builds beside it, so no more than "some" is asserted).
        Assert.True(server.Requests > s.Requests, $"server {server.Requests}, measured {s.Requests}");
    }

    [Fact]
    public async Task RunAsync_RequestCount_EqualsWhatTheServerCounted()
    {
        await using var server = await TestServer.StartAsync();
        var result = await LoadEngine.RunAsync(Plan(new ClosedModel(8), server.Url("/fast"), TimeSpan.FromSeconds(30), count: 1500));

        var s = Assert.Single(result.Scenarios);
        Assert.False(result.Incomplete, result.IncompleteReason);
        Assert.Equal(1500, s.Requests);
        Assert.Equal(1500, s.Latency.Count);
        Assert.Equal(1500, server.Requests);
        Assert.Equal(1500 * 2, s.BytesReceived);
        Assert.Equal(1500, s.Timeline.Sum(p => p.Requests));
    }

    [Fact]
    public async Task RunAsync_OpenModel_SendsOnScheduleOrSaysHowLate()
    {
        await using var server = await TestServer.StartAsync();
        var result = await LoadEngine.RunAsync(Plan(new OpenModel(200, 16), server.Url("/fast"), TimeSpan.FromSeconds(5), warmup: TimeSpan.FromSeconds(1)));

        var s = Assert.Single(result.Scenarios);
        var open = Assert.IsType<OpenSchedule>(s.Open);
        Assert.False(result.Incomplete, result.IncompleteReason);
        // 200 sends a second due in the 5 s window, and as many made: within 10 on a quiet machine. A starved host sends
        // late (beside two busy loops: 832 made, the rest owed at the window's end), and a window opened late takes in
        // the sends owed from the warm-up (CI read 203.85 req/s once); either way the pacer says how late it fell: the
        // sends made or owed beyond the schedule are at most what its largest lag holds (twice, for margin). Sends
        // dropped or made twice without a lag to show for it fail this.
        var slack = 10 + (2 * open.MaxLagMs * 200 / 1000);
        Assert.True(Math.Abs(open.Sent - open.Scheduled) <= slack,
            $"sent {open.Sent} of {open.Scheduled} due, largest lag {open.MaxLagMs} ms, {open.LateSends} late");
        // Every send answered: /fast answers at once, so the window's completions are its sends give or take those in
        // flight at its edges, at most the 16 connections' worth each.
        Assert.InRange(s.Requests, open.Sent - 16, open.Sent + 16);
        Assert.NotNull(s.UncorrectedLatency);
    }

    [Fact]
    public async Task RunAsync_OpenModelOnAFixed20msDelay_LatencyFromTheIntendedTimeNeverBelowTheActualOne()
    {
        await using var server = await TestServer.StartAsync();
        // 16 connections, so that a latency of up to 160 ms (a loaded machine: 264 of 300 sent with 4) never holds a send back.
        var result = await LoadEngine.RunAsync(Plan(new OpenModel(100, 16), server.Url("/delay?ms=20"), TimeSpan.FromSeconds(3)));

        var s = Assert.Single(result.Scenarios);
        Assert.False(result.Incomplete, result.IncompleteReason);
        Assert.Equal(0, s.Errors.Total);
        // 300 sends due in the 3 s window; a starved host sends late (a fresh-clone CI on a slow stretch made 293), and
        // the pacer says how late it fell: the sends missing are at most what its largest lag holds (twice, for margin).
        var open = s.Open!;
        Assert.InRange(open.Scheduled, 297, 303);
        Assert.True(Math.Abs(open.Sent - open.Scheduled) <= 3 + (2 * open.MaxLagMs * 100 / 1000),
            $"sent {open.Sent} of {open.Scheduled} due, largest lag {open.MaxLagMs} ms, {open.LateSends} late");
        // Every request leaves at or after its intended time (the pacer never ends a wait early), so each latency from
        // the intended time is at least its latency from the actual send: the whole distribution sits on or above it.
        var actual = s.UncorrectedLatency!;
        Assert.True(s.Latency.MinMs >= actual.MinMs && s.Latency.P50Ms >= actual.P50Ms && s.Latency.MeanMs >= actual.MeanMs,
            $"from intended: min {s.Latency.MinMs} p50 {s.Latency.P50Ms} mean {s.Latency.MeanMs}; "
            + $"from the send: min {actual.MinMs} p50 {actual.P50Ms} mean {actual.MeanMs}");
        // The server's Task.Delay may end a coarse tick (4 ms) early; 16 users at 6.25 req/s each never queue on a 20 ms delay.
        Assert.InRange(s.Latency.MinMs, 15, 60);
        Assert.InRange(s.Latency.P50Ms, 15, 60);
    }

    [Fact]
    public async Task RunAsync_OpenModelAcrossAOneSecondStall_CorrectedP99NearStallWhileUncorrectedStaysLow()
    {
        await using var server = await TestServer.StartAsync();
        server.StallAfter = TimeSpan.FromSeconds(2);
        server.StallFor = TimeSpan.FromSeconds(1);
        var result = await LoadEngine.RunAsync(Plan(new OpenModel(200, 4), server.Url("/stall"), TimeSpan.FromSeconds(6)));

        var s = Assert.Single(result.Scenarios);
        Assert.False(result.Incomplete, result.IncompleteReason);
        Assert.Equal(0, s.Errors.Total);
        // 200 of ~1200 requests were due during the stall, waiting 0..1 s: the top 1 % waited about 0.9 s or more.
        Assert.InRange(s.Latency.P99Ms, 800, 1300);
        Assert.InRange(s.Latency.MaxMs, 900, 1400);
        // Only the 4 requests in flight when the stall began waited on the wire (0.3 %), so p99 of them stays far below
        // the stall; the catch-up after it goes out as fast as 4 connections allow. On a CI machine with both cores full
        // it read 246 ms once (2026-12-02), so the bound is half the stall, not a fixed 100 ms: a figure that took the
        // stall's wait in would still read about 900 ms, and the corrected p99 above must be at least 800.
        Assert.InRange(s.UncorrectedLatency!.P99Ms, 0, server.StallFor.TotalMilliseconds / 2);
        Assert.InRange(s.UncorrectedLatency.MaxMs, 900, 1400);
        Assert.True(s.Open!.LateSends >= 150, $"late sends {s.Open.LateSends}");
    }

    [Theory]
    [InlineData("/status/404", "http-404", 5000)]
    [InlineData("/status/500", "http-500", 5000)]
    [InlineData("/delay?ms=3000", "timeout", 300)]
    public async Task RunAsync_FailingEndpoint_ClassifiesTheError(string path, string kind, int timeoutMs)
    {
        await using var server = await TestServer.StartAsync();
        var result = await LoadEngine.RunAsync(Plan(new ClosedModel(2), server.Url(path), TimeSpan.FromSeconds(20), count: 6, timeout: TimeSpan.FromMilliseconds(timeoutMs)));

        var s = Assert.Single(result.Scenarios);
        Assert.Equal(6, s.Requests);
        Assert.Equal(6, s.Errors.Total);
        Assert.True(6 == s.Errors.ByKind.GetValueOrDefault(kind), string.Join(",", s.Errors.ByKind));
        Assert.Single(s.Errors.ByKind);
    }

    [Fact]
    public async Task RunAsync_TargetDiesMidRun_StopsAndReturnsWhatWasMeasuredMarkedIncomplete()
    {
        var server = await TestServer.StartAsync();
        var url = server.Url("/delay?ms=5");
        var stopper = Task.Run(async () =>
        {
            await Task.Delay(1500);
            await server.DisposeAsync();
        });
        var clock = Stopwatch.StartNew();
        var result = await LoadEngine.RunAsync(Plan(new ClosedModel(4), url, TimeSpan.FromSeconds(30)));
        await stopper;

        // Stopped well before its 30 s, with a stall's room (it stops about a second after the server does).
        Assert.True(clock.Elapsed < TimeSpan.FromSeconds(15), $"took {clock.Elapsed}");
        Assert.True(result.Incomplete);
        Assert.Contains("stopped answering", result.IncompleteReason);
        var s = Assert.Single(result.Scenarios);
        Assert.True(s.Latency.Count > 0, $"no response measured before the stop (the server counted {server.Requests})");
        Assert.True(s.Errors.ByKind.ContainsKey("connection-refused") || s.Errors.ByKind.ContainsKey("connection-error"), string.Join(",", s.Errors.ByKind.Keys));
    }

    [Fact]
    public async Task RunAsync_NothingListens_ThrowsUnreachableWithinFiveSeconds()
    {
        var clock = Stopwatch.StartNew();
        var ex = await Assert.ThrowsAsync<PerfLabException>(() => LoadEngine.RunAsync(Plan(new ClosedModel(1), new Uri($"http://127.0.0.1:{LoopbackPorts.PickFree()}/"), TimeSpan.FromSeconds(5))));
        Assert.Equal(ExitCode.Unreachable, ex.ExitCode);
        Assert.Contains("connection refused", ex.Message);
        Assert.True(clock.Elapsed < TimeSpan.FromSeconds(5));
    }

    [Theory]
    [InlineData("http://10.1.2.3:5000/")]
    [InlineData("http://example.com/")]
    [InlineData("http://[2001:db8::1]/")]
    public async Task RunAsync_NonLoopbackTarget_IsRefusedWithTheReason(string url)
    {
        var ex = await Assert.ThrowsAsync<PerfLabException>(() => LoadEngine.RunAsync(Plan(new ClosedModel(1), new Uri(url), TimeSpan.FromSeconds(1))));
        Assert.Equal(ExitCode.Usage, ex.ExitCode);
        Assert.Contains("--allow-remote", ex.Message);
    }

    [Fact]
    public async Task RunAsync_Cancelled_StopsWithinASecondAndReturnsAnIncompleteResult()
    {
        await using var server = await TestServer.StartAsync();
        using var cts = new CancellationTokenSource(TimeSpan.FromSeconds(1.5));
        var run = LoadEngine.RunAsync(Plan(new ClosedModel(4), server.Url("/delay?ms=400"), TimeSpan.FromSeconds(30)), ct: cts.Token);
        var result = await run.WaitAsync(TimeSpan.FromSeconds(10));
        var clock = Stopwatch.GetElapsedTime(Stopwatch.GetTimestamp());

        Assert.True(result.Incomplete);
        Assert.Contains("interrupted", result.IncompleteReason);
        // Cancelled at 1.5 s of its 30: it ends then, give or take a stall of the host (3 s of room), not at its end.
        Assert.InRange((result.EndedUtc - result.StartedUtc).TotalSeconds, 1.4, 4.5);
        // What completed before the cancel is kept: at most 4 users x 400 ms over 1.5 s (and a few in flight).
        Assert.InRange(Assert.Single(result.Scenarios).Requests, 1, 20);
        _ = clock;
    }

    [Fact]
    public async Task RunAsync_Burst_ReportsEachBatchTimeAndBenchmarkDotNetStatistics()
    {
        await using var server = await TestServer.StartAsync();
        var result = await LoadEngine.RunAsync(Plan(new BurstModel(20, 5, WarmupBatches: 1), server.Url("/delay?ms=100"), TimeSpan.FromSeconds(30)));

        var s = Assert.Single(result.Scenarios);
        var burst = Assert.IsType<BurstStats>(s.Burst);
        Assert.False(result.Incomplete, result.IncompleteReason);
        Assert.Equal(5, burst.BatchMs.Count);
        // Kestrel's Task.Delay runs on the coarse timer tick and may fire a few ms early on a loaded machine. A batch
        // is its 20 requests at once: one delay, and under the 2 s of the 20 one after another even with a stall in it.
        Assert.All(burst.BatchMs, ms => Assert.InRange(ms, 95, 1900));
        Assert.Equal(burst.BatchMs.Average(), burst.MeanMs, 9);
        Assert.NotNull(burst.ErrorMs);
        Assert.Equal(100, s.Requests);
        Assert.Equal(120, server.Requests);
        Assert.InRange(s.Latency.MinMs, 95, 400);
    }

    [Fact]
    public async Task RunAsync_Ramp_StepsUsersUpAndThroughputFollows()
    {
        await using var server = await TestServer.StartAsync();
        var ramp = new RampModel(StartUsers: 2, Step: 4, StepEvery: TimeSpan.FromSeconds(1.5), MaxUsers: 10);
        var result = await LoadEngine.RunAsync(Plan(ramp, server.Url("/delay?ms=50"), TimeSpan.FromSeconds(4.5)));

        var s = Assert.Single(result.Scenarios);
        Assert.False(result.Incomplete, result.IncompleteReason);
        var steps = s.Ramp!;
        Assert.Equal([2, 6, 10], steps.Select(x => x.Users));
        // The users were really added: the server held more than the second step's 6 at once, never more than 10.
        // 50 ms per request: ~40, ~120, ~200 req/s; five times the users beat the first step by far more than half
        // again, with room for a second's stall in a 1.5 s step.
        Assert.InRange(server.MostInFlight, 7, 10);
        Assert.True(steps[2].RequestsPerSecond > steps[0].RequestsPerSecond * 1.5,
            $"{steps[0].RequestsPerSecond} -> {steps[2].RequestsPerSecond}");
        Assert.Equal(s.Requests, steps.Sum(x => x.Requests));
        Assert.Contains(s.Timeline, p => p.ActiveUsers == 10);
        Assert.Contains(s.Timeline, p => p.ActiveUsers == 2);
    }

    [Fact]
    public async Task RunAsync_UrlTemplateWithValuesFromUrl_RequestsEveryValueInCircularOrder()
    {
        await using var server = await TestServer.StartAsync();
        var feed = new RequestFeed(server.BaseUri + "orders/{id}") { ValuesUrl = server.Url("/ids").ToString() };
        var plan = new LoadPlan([new ScenarioPlan("orders", new ClosedModel(1), feed) { MaxRequests = 7 }], TimeSpan.FromSeconds(10), TimeSpan.Zero, TimeSpan.FromSeconds(5));

        var result = await LoadEngine.RunAsync(plan);

        Assert.Equal(7, result.Scenarios[0].Requests);
        Assert.Equal(["43659", "43660", "43661", "43659", "43660", "43661", "43659"], server.Ids);
    }

    [Fact]
    public async Task RunAsync_RandomFeedWithASeed_RepeatsTheSameSequence()
    {
        var sequences = new List<List<string>>();
        for (var i = 0; i < 2; i++)
        {
            await using var server = await TestServer.StartAsync();
            var feed = new RequestFeed(server.BaseUri + "orders/{id}") { Values = ["a", "b", "c", "d", "e"], Order = FeedOrder.Random, Seed = 7 };
            await LoadEngine.RunAsync(new LoadPlan([new ScenarioPlan("orders", new ClosedModel(1), feed) { MaxRequests = 30 }], TimeSpan.FromSeconds(10), TimeSpan.Zero, TimeSpan.FromSeconds(5)));
            sequences.Add([.. server.Ids]);
        }

        Assert.Equal(30, sequences[0].Count);
        Assert.Equal(sequences[0], sequences[1]);
        Assert.True(sequences[0].Distinct().Count() >= 4);
        Assert.NotEqual(["a", "b", "c", "d", "e"], sequences[0].Take(5));
        // The same in every process, not only in this one: user 0 of seed 7 draws from System.Random(7 * 1,000,003),
        // whose seeded sequence .NET keeps stable (a per-process salted hash gave another sequence each invocation).
        var expected = new Random(7_000_021);
        Assert.Equal(Enumerable.Range(0, 30).Select(_ => "abcde"[expected.Next(5)].ToString()), sequences[0]);
    }

    [Fact]
    public async Task RunAsync_TwoScenarios_MeasuresEachOnItsOwn()
    {
        await using var server = await TestServer.StartAsync();
        var plan = new LoadPlan(
            [
                new ScenarioPlan("slow", new ClosedModel(3), new RequestFeed(server.Url("/delay?ms=100").ToString())),
                new ScenarioPlan("fast", new ClosedModel(3), new RequestFeed(server.Url("/delay?ms=10").ToString())),
            ],
            TimeSpan.FromSeconds(2), TimeSpan.Zero, TimeSpan.FromSeconds(5));

        var result = await LoadEngine.RunAsync(plan);

        // Each histogram holds only its own scenario's answers: no slow answer came well under its 100 ms, and the fast
        // one has answers well under it (Task.Delay fires a few ms early here: 96.1 and 8.9 ms were read). A stalled
        // machine only adds to latencies, so these hold on a busy CI host (an upper bound on the slow p50 read 282 ms).
        Assert.InRange(result.Scenarios[0].Latency.MinMs, 90, double.MaxValue);
        Assert.InRange(result.Scenarios[1].Latency.MinMs, 5, 60);
        Assert.True(result.Scenarios[1].Latency.P50Ms < result.Scenarios[0].Latency.P50Ms);
        Assert.True(result.Scenarios[1].Requests > result.Scenarios[0].Requests * 2);
        var seconds = result.Scenarios[0].Timeline.Select(p => p.UnixSecond).ToArray();
        Assert.Equal(seconds.Order(), seconds);
        Assert.Equal(seconds.Length, seconds.Distinct().Count());
        Assert.InRange(seconds[0], result.StartedUtc.ToUnixTimeSeconds(), result.StartedUtc.ToUnixTimeSeconds());
    }

    [Fact]
    public async Task RunAsync_Json_RoundTripsTheResultGraph()
    {
        await using var server = await TestServer.StartAsync();
        var result = await LoadEngine.RunAsync(Plan(new OpenModel(50, 2), server.Url("/fast"), TimeSpan.FromSeconds(1)));
        var json = LoadSummary.ToJson(result);
        var back = System.Text.Json.JsonSerializer.Deserialize<LoadResult>(json, LoadSummary.JsonOptions)!;
        Assert.Equal(result.Scenarios[0].Requests, back.Scenarios[0].Requests);
        Assert.Equal(result.Scenarios[0].Latency, back.Scenarios[0].Latency);
        Assert.Contains("\"uncorrectedLatency\"", json);
        // The people's summary of the graph read back is the one of the graph written: nothing it shows was lost.
        var text = LoadSummary.ToText(result);
        Assert.Equal(text, LoadSummary.ToText(back));
        Assert.Contains($"  {result.Scenarios[0].Requests} requests in ", text);
        Assert.Contains("  Schedule: 50 req/s, ", text);
    }

    [Fact]
    public async Task RunAsync_Http2PriorKnowledge_SpeaksH2cToAnHttp2OnlyServer()
    {
        await using var server = await TestServer.StartAsync(http2Only: true);
        var plan = Plan(new ClosedModel(4), server.Url("/fast"), TimeSpan.FromSeconds(10), count: 200) with { Http2 = true };

        var result = await LoadEngine.RunAsync(plan);

        Assert.Equal(200, result.Scenarios[0].Requests);
        Assert.Equal(0, result.Scenarios[0].Errors.Total);
        Assert.Equal("HTTP/2", server.LastProtocol);
    }

    [Fact]
    public async Task RunAsync_H2cClientAgainstHttp1OnlyServer_StopsSayingTheTargetNeverAnswered()
    {
        await using var server = await TestServer.StartAsync();

        var result = await LoadEngine.RunAsync(Plan(new ClosedModel(2), server.Url("/fast"), TimeSpan.FromSeconds(20)) with { Http2 = true });

        Assert.True(result.Incomplete, LoadSummary.ToText(result));
        Assert.Contains("never answered", result.IncompleteReason);
        Assert.True((result.EndedUtc - result.StartedUtc).TotalSeconds < 5);
    }
}
