using System.Diagnostics;
using PerfLab.Common;
using PerfLab.Counters;
using PerfLab.SutProcesses;

namespace PerfLab.Tests.Counters;

// Each test starts its own SUT: thread-pool history (threads already injected) would hide what a test looks for.
public sealed class CounterCollectorTests
{
    private static readonly TimeSpan _testBudget = TimeSpan.FromSeconds(60);

    [Fact]
    public async Task CollectAsync_BlockingEndpointUnderLoad_SeesQueueGrowAndStarvationInjections()
    {
        await using var sut = await StartSutAsync();
        using var stop = new CancellationTokenSource(_testBudget);
        var samples = new SampleWaiter();
        var collecting = CounterCollector.CollectAsync(sut.Pid, new CounterOptions(), samples, stop.Token);
        await samples.WaitForCountAsync(1, stop.Token);

        // 40 users on a 3 s Thread.Sleep: work items queue behind a pool of a few threads, and the gate thread injects
        // a thread ("Starvation") whenever nothing was dequeued for 500 ms, i.e. while fewer than 6 threads block 3 s.
        await LoadAsync(sut.BaseAddress, "/weatherforecast-sync?ms=3000", users: 40, TimeSpan.FromSeconds(8), stop.Token);
        await samples.WaitForCountAsync(samples.Count + 1, stop.Token);
        await stop.CancelAsync();
        var recording = await collecting;

        Assert.Equal(CollectionEnding.Cancelled, recording.Ending);
        var queue = Series(recording, "threadpool-queue-length");
        var threads = Series(recording, "threadpool-thread-count");
        Assert.True(queue.Max() >= 5, $"queue length never rose: {string.Join(",", queue)}");
        Assert.True(threads.Max() >= threads.First() + 2, $"thread count did not climb: {string.Join(",", threads)}");
        var starvation = recording.Adjustments.Count(a => a.Reason == "Starvation");
        Assert.True(starvation >= 1, $"no Starvation adjustment among {string.Join(",", recording.Adjustments.Select(a => a.Reason))}");
        Assert.Equal(starvation, (int)Series(recording, CounterCatalog.StarvationCounter).Sum());
        Assert.True(Series(recording, "requests-per-second").Sum() > 0);
    }

    [Theory]
    [InlineData(RuntimeCounterSource.Meter, CounterSource.Meter)]
    [InlineData(RuntimeCounterSource.EventCounters, CounterSource.EventCounters)]
    [InlineData(RuntimeCounterSource.Auto, CounterSource.Meter)]
    public async Task CollectAsync_IdleSut_ValuesMatchWhatTheProcessSaysOfItself(RuntimeCounterSource source, CounterSource expected)
    {
        await using var sut = await StartSutAsync();
        using var stop = new CancellationTokenSource(_testBudget);
        var samples = new SampleWaiter();
        var collecting = CounterCollector.CollectAsync(sut.Pid, new CounterOptions { Source = source }, samples, stop.Token);
        await samples.WaitForCountAsync(3, stop.Token);
        var info = await sut.GetInfoAsync(stop.Token);
        await stop.CancelAsync();
        var recording = await collecting;

        Assert.Equal(info.RuntimeVersion, recording.RuntimeVersion);
        Assert.Equal(expected, recording.Counters.Single(c => c.Name == "working-set").Source);
        Assert.Equal(CounterSource.EventCounters, recording.Counters.Single(c => c.Name == "requests-per-second").Source);
        var last = recording.Samples[^1];
        var workingSetMb = info.WorkingSet / 1e6;
        var counted = last.Get("working-set") ?? Series(recording, "working-set").Last();
        Assert.InRange(counted, workingSetMb * 0.8, workingSetMb * 1.2);
        Assert.InRange(Series(recording, "threadpool-thread-count").Last(), 1, info.ThreadPool.ThreadCount + 3);
        Assert.InRange(Series(recording, "cpu-usage").Average(), 0, 100);
        Assert.All(CounterCatalog.All.Where(d => d.EventSource == CounterCatalog.RuntimeEventSource),
            d => Assert.Contains(recording.Samples, s => s.Values.ContainsKey(d.Name)));
    }

    // EventCounters publish methods-jitted-count as the process's running total (thousands for an ASP.NET Core app);
    // the meter as a rate. Read as a total, a warm-up waiting for the JIT to go quiet never ended on net8.0 SUTs.
    [Theory]
    [InlineData(RuntimeCounterSource.Meter)]
    [InlineData(RuntimeCounterSource.EventCounters)]
    public async Task CollectAsync_IdleSut_MethodsJittedIsARateOnBothSources(RuntimeCounterSource source)
    {
        await using var sut = await StartSutAsync();
        using var stop = new CancellationTokenSource(_testBudget);
        var info = await sut.GetInfoAsync(stop.Token);
        var samples = new SampleWaiter();
        var collecting = CounterCollector.CollectAsync(sut.Pid, new CounterOptions { Source = source }, samples, stop.Token);
        await samples.WaitForCountAsync(5, stop.Token);
        await stop.CancelAsync();
        var recording = await collecting;

        var jitted = Series(recording, CounterNames.MethodsJitted);
        Assert.True(jitted.Count >= 3, $"too few methods-jitted samples: {jitted.Count}");
        var total = info.MethodsJitted ?? 0;
        Assert.True(total >= 500, $"the SUT had jitted only {total} methods; the test needs a total that a rate cannot reach");
        // Read as a total, every sample would be at least the total before the session; as a rate, the samples add up to
        // what the idle SUT compiled during the session (the collector's own session costs it a few hundred methods).
        Assert.True(jitted.Sum() < total, $"methods jitted per second {string.Join(", ", jitted)} add up to more than the {total} compiled before the session");
    }

    [Fact]
    public async Task CollectAsync_KnownNumberOfRequests_RequestRateAddsUpToThem()
    {
        var recording = await CollectAroundRequestsAsync(new CounterOptions(), "/weatherforecast-async?ms=1", 50);

        Assert.Equal(50, Series(recording, "requests-per-second").Sum());
        Assert.True(Series(recording, "alloc-rate").Sum() > 0);
    }

    // Written out under the dotnet-counters names rather than taken from the catalog, so a counter the catalog loses,
    // renames or moves to another provider fails here.
    private static readonly string[] RuntimeCounters =
    [
        "cpu-usage", "working-set", "gc-heap-size", "time-in-gc", "alloc-rate", "gen-0-gc-count", "gen-1-gc-count",
        "gen-2-gc-count", "threadpool-thread-count", "threadpool-queue-length", "threadpool-completed-items-count",
        "monitor-lock-contention-count", "methods-jitted-count", "time-in-jit", "exception-count", "threadpool-starvation-injections",
    ];

    private static readonly string[] HostingCounters = ["requests-per-second", "current-requests"];

    [Theory]
    [InlineData(CounterCatalog.RuntimeEventSource)]
    [InlineData(CounterCatalog.HostingEventSource)]
    public async Task CollectAsync_OneProvider_RecordsItsCountersAndNoOthers(string provider)
    {
        // Through the API the names are read as --counters reads them: any case.
        var recording = await CollectAroundRequestsAsync(new CounterOptions { Providers = [provider.ToLowerInvariant()] }, "/json", 20);

        var runtime = provider == CounterCatalog.RuntimeEventSource;
        var expected = runtime ? RuntimeCounters : HostingCounters;
        Assert.Equal(expected, recording.Counters.Select(c => c.Name));
        Assert.All(recording.Samples, s => Assert.Empty(s.Values.Keys.Except(expected)));
        if (runtime)
        {
            Assert.True(Series(recording, "threadpool-completed-items-count").Sum() >= 20);
        }
        else
        {
            Assert.Equal(20, Series(recording, "requests-per-second").Sum());
        }
    }

    [Fact]
    public async Task CollectAsync_UnknownProvider_UsageErrorBeforeAttaching()
    {
        var options = new CounterOptions { Providers = ["System.Net.Http"] };
        var error = await Assert.ThrowsAsync<PerfLabException>(() => CounterCollector.CollectAsync(Environment.ProcessId, options, null, CancellationToken.None));

        Assert.Equal(ExitCode.Usage, error.ExitCode);
        Assert.Contains("System.Net.Http", error.Message);
    }

    [Fact]
    public async Task CollectAsync_ProcessExitsMidCollection_KeepsWhatWasCollectedAndSaysSo()
    {
        await using var sut = await StartSutAsync();
        using var stop = new CancellationTokenSource(_testBudget);
        var samples = new SampleWaiter();
        var collecting = CounterCollector.CollectAsync(sut.Pid, new CounterOptions { Duration = TimeSpan.FromSeconds(40) }, samples, stop.Token);
        await samples.WaitForCountAsync(2, stop.Token);
        await sut.StopAsync();
        var recording = await collecting.WaitAsync(TimeSpan.FromSeconds(15));

        Assert.Equal(CollectionEnding.ProcessExited, recording.Ending);
        Assert.Contains("exited", recording.EndingDetail);
        Assert.True(recording.Samples.Count >= 2);
    }

    [Fact]
    public async Task CollectAsync_Cancelled_StopsPromptlyAndReturnsTheSamples()
    {
        await using var sut = await StartSutAsync();
        using var stop = new CancellationTokenSource();
        var samples = new SampleWaiter();
        var collecting = CounterCollector.CollectAsync(sut.Pid, new CounterOptions { Duration = TimeSpan.FromSeconds(40) }, samples, stop.Token);
        using (var budget = new CancellationTokenSource(_testBudget))
        {
            await samples.WaitForCountAsync(2, budget.Token);
        }
        var clock = Stopwatch.StartNew();
        await stop.CancelAsync();
        var recording = await collecting.WaitAsync(TimeSpan.FromSeconds(15));
        clock.Stop();

        Assert.Equal(CollectionEnding.Cancelled, recording.Ending);
        // Promptly, not at the end of its 40 s: a stalled host gets seconds of room.
        Assert.True(clock.Elapsed < TimeSpan.FromSeconds(10), $"took {clock.Elapsed.TotalMilliseconds:0} ms to stop");
        Assert.True(recording.Samples.Count >= 2);
        Assert.All(recording.Samples, s => Assert.InRange(s.UnixSeconds * 1000, recording.StartedUnixMs - 1000, recording.EndedUnixMs));
    }

    [Fact]
    public async Task CollectAsync_Duration_CompletesOnTime()
    {
        await using var sut = await StartSutAsync();
        var clock = Stopwatch.StartNew();
        var recording = await CounterCollector.CollectAsync(sut.Pid, new CounterOptions { Duration = TimeSpan.FromSeconds(3) }, null, CancellationToken.None)
            .WaitAsync(_testBudget);

        Assert.Equal(CollectionEnding.Completed, recording.Ending);
        Assert.InRange(clock.Elapsed.TotalSeconds, 3, 10); // its 3 s; the rest is a stalled host's room
        Assert.InRange(recording.Samples.Count, 2, 4);
    }

    /// <summary>Collects from a fresh SUT while sending it <paramref name="requests"/> GETs, one at a time.</summary>
    private static async Task<CounterRecording> CollectAroundRequestsAsync(CounterOptions options, string path, int requests)
    {
        await using var sut = await StartSutAsync();
        using var stop = new CancellationTokenSource(_testBudget);
        var samples = new SampleWaiter();
        var collecting = CounterCollector.CollectAsync(sut.Pid, options, samples, stop.Token);
        await samples.WaitForCountAsync(2, stop.Token);

        using var client = new HttpClient { BaseAddress = sut.BaseAddress };
        for (var i = 0; i < requests; i++)
        {
            (await client.GetAsync(path, stop.Token)).EnsureSuccessStatusCode();
        }
        // Rates are published at the end of the interval they cover: two more samples close the last one. On a loaded
        // machine the request rate's last interval came later than that (45 of 50 seen in CI): while that counter is
        // read and its sum is short, up to eight more samples. A rate that loses requests still fails the tests.
        await samples.WaitForCountAsync(samples.Count + 2, stop.Token);
        for (var more = 0; more < 8 && samples.SumOf("requests-per-second") is { } seen && seen < requests; more++)
        {
            await samples.WaitForCountAsync(samples.Count + 1, stop.Token);
        }
        await stop.CancelAsync();
        return await collecting;
    }

    // The SUT's log goes to a test cache folder (removed when the test host exits), not the developer's cache.
    internal static Task<SutProcess> StartSutAsync() =>
        SutProcess.StartAsync(SutLaunch.Default(connectionString: null) with { LogFile = Path.Combine(TestCaches.NewFolder(), "sut.log") });

    private static List<double> Series(CounterRecording recording, string counter) =>
        recording.Samples.Select(s => s.Get(counter)).OfType<double>().ToList();

    private static async Task LoadAsync(Uri baseAddress, string path, int users, TimeSpan duration, CancellationToken ct)
    {
        using var client = new HttpClient { BaseAddress = baseAddress, Timeout = TimeSpan.FromSeconds(30) };
        // Requests still queued at the end are abandoned rather than awaited: the server may hold them for long.
        using var until = CancellationTokenSource.CreateLinkedTokenSource(ct);
        until.CancelAfter(duration);
        var loops = Enumerable.Range(0, users).Select(async _ =>
        {
            for (var i = 0; i < 1000 && !until.IsCancellationRequested; i++)
            {
                try
                {
                    using var response = await client.GetAsync(path, until.Token);
                }
                catch (OperationCanceledException) when (until.IsCancellationRequested)
                {
                }
            }
        });
        await Task.WhenAll(loops);
    }

    /// <summary>Counts the samples the collector reports, so that a test waits for data rather than for time.</summary>
    private sealed class SampleWaiter : IProgress<CounterSample>
    {
        private readonly Lock _gate = new();
        private int _count;
        private readonly Dictionary<string, double> _sums = [];
        private TaskCompletionSource _changed = new(TaskCreationOptions.RunContinuationsAsynchronously);

        public int Count
        {
            get
            {
                lock (_gate)
                {
                    return _count;
                }
            }
        }

        /// <summary>The sum of a counter's values reported so far; null while none was.</summary>
        public double? SumOf(string counter)
        {
            lock (_gate)
            {
                return _sums.TryGetValue(counter, out var sum) ? sum : null;
            }
        }

        public void Report(CounterSample value)
        {
            TaskCompletionSource changed;
            lock (_gate)
            {
                _count++;
                foreach (var (counter, v) in value.Values)
                {
                    _sums[counter] = _sums.GetValueOrDefault(counter) + v;
                }
                changed = _changed;
                _changed = new(TaskCreationOptions.RunContinuationsAsynchronously);
            }
            changed.TrySetResult();
        }

        public async Task WaitForCountAsync(int count, CancellationToken ct)
        {
            while (true)
            {
                Task changed;
                lock (_gate)
                {
                    if (_count >= count)
                    {
                        return;
                    }
                    changed = _changed.Task;
                }
                await changed.WaitAsync(ct);
            }
        }
    }
}
