using Microsoft.Diagnostics.Tracing.Parsers.Clr;
using PerfLab.Counters;
using PerfLab.Tracing;

namespace PerfLab.Apps;

/// <summary>
/// The thing an experiment measures, resolved for one variant: the built-in SUT (<see cref="BuiltInSut"/>) or a user's
/// project, DLL or command (<see cref="ExternalApp"/>). The runner, load models, counters, statistics and reports work
/// on this and on <see cref="IRunningApp"/> only, so they do not care which it is. Chosen at run time from the
/// experiment file's <c>app:</c> section.
/// </summary>
public interface IAppUnderTest
{
    /// <summary>Builds what has to be built (cached), so that no measured run's start includes a build.</summary>
    /// <exception cref="Common.PerfLabException">The app cannot be built or found: a message naming what and what to do.</exception>
    Task PrepareAsync(IProgress<string>? progress, CancellationToken ct);

    /// <summary>Starts one fresh process of the app and waits until it is ready; it fails with the tail of the app's log.</summary>
    /// <exception cref="Common.PerfLabException">The app exited or was not ready in time.</exception>
    Task<IRunningApp> StartAsync(string logFile, IProgress<string>? progress, CancellationToken ct);
}

/// <summary>One started process of an app under test; disposing it stops the process.</summary>
public interface IRunningApp : IAsyncDisposable
{
    Uri BaseAddress { get; }

    /// <summary>
    /// The pid of an app placed on another host: no process of this machine. Its counters, JIT events, CPU clock and
    /// traces are read by its role on its host, through the members below; whatever else reads by pid finds nothing.
    /// </summary>
    const int Elsewhere = -1;

    /// <summary>
    /// The .NET process perflab attaches to (counters, traces, the variant check); <see cref="Elsewhere"/> for an app on
    /// another host.
    /// </summary>
    int Pid { get; }

    bool HasExited { get; }

    int ExitCode { get; }

    string TailOfLog(int lines = 15);

    /// <summary>
    /// Headers every request perflab sends the app carries: none here; the run's token of the built-in SUT's
    /// <c>/diagnostics/*</c> when it listens on another host's address (placed by a hosts file).
    /// </summary>
    IReadOnlyList<KeyValuePair<string, string>> RequestHeaders => [];

    /// <summary>An HttpClient for this app (speaking the HTTP version it serves), optionally through a proxy address.</summary>
    HttpClient CreateClient(TimeSpan timeout, Uri? through = null);

    /// <summary>
    /// The app's runtime counters over EventPipe until <paramref name="ct"/> fires, each sample given to
    /// <paramref name="live"/> as it is read: attached to its process here, or read on its host and streamed back.
    /// </summary>
    /// <exception cref="Common.PerfLabException">The process refused the session.</exception>
    Task<CounterRecording> CollectCountersAsync(CounterOptions options, IProgress<CounterSample>? live, CancellationToken ct) =>
        CounterCollector.CollectAsync(Pid, options, live, ct);

    /// <summary>The CPU time the kernel has charged the app's process so far, in nanoseconds; null when it is gone.</summary>
    long? CpuNanoseconds() => Common.CpuClock.ProcessNanoseconds(Pid);

    /// <summary>
    /// An EventPipe trace of the app for <paramref name="length"/> (shorter when <paramref name="ct"/> fires), written to
    /// <paramref name="path"/> on this machine, with the CPU the kernel charged it meanwhile: taken here, or on its host
    /// and the file sent back.
    /// </summary>
    /// <exception cref="Common.PerfLabException">The process refused the session, or the file did not come back whole.</exception>
    async Task<TracedStretch> TraceAsync(TimeSpan length, string path, CancellationToken ct) =>
        await TraceSession.CaptureAsync(Pid, length, path, ct) with { AppModule = MainModule.Of(Pid) };

    /// <summary>
    /// The app's JIT events (<see cref="JitEventSession"/>) given to the callbacks, times in Unix ms on this machine's
    /// clock, until the returned watch is disposed; null when the process refused the session.
    /// </summary>
    async Task<IAsyncDisposable?> WatchJitAsync(Action<long, OptimizationTier> onCompiled, Action<int> onBackground,
        CancellationToken ct) =>
        await JitEventSession.StartAsync(Pid, onCompiled, onBackground, ct);

    /// <summary>
    /// What the running process shows of its variant: what was confirmed, what could not be, and what is shown not to hold.
    /// </summary>
    /// <exception cref="Common.PerfLabException">The app could not be asked at all (the built-in SUT's /info did not answer).</exception>
    Task<VariantEffect> CheckVariantAsync(CancellationToken ct);
}
