using System.Diagnostics.Tracing;
using Microsoft.Diagnostics.NETCore.Client;
using PerfLab.Common;

namespace PerfLab.Tracing;

/// <summary>What a trace session collects: the process, how long, and where the .nettrace goes.</summary>
public sealed record TraceOptions(int ProcessId, TimeSpan Duration, string OutputPath);

/// <summary>
/// A trace written to a file, with what the kernel charged the process while it ran: the analysis scales the samples'
/// CPU to <see cref="ChargedMs"/> and leaves the trace's own threads out (<see cref="SamplerCharge"/>).
/// </summary>
/// <param name="StartedUnixMs">When the session started, on the clock of the process's host.</param>
/// <param name="Seconds">How long the session ran, start to stop.</param>
/// <param name="ChargedMs">The process's CPU over the session (/proc/PID/stat); NaN when unknown.</param>
/// <param name="Threads">Per-thread CPU over the session; empty when it could not be read.</param>
/// <param name="AppModule">The app's own module, whose frames the analysis calls the app's code; null when unknown.</param>
public sealed record TracedStretch(long StartedUnixMs, double Seconds, long Bytes, double ChargedMs,
    IReadOnlyList<ThreadGroupCpu> Threads, string? AppModule = null);

/// <summary>
/// An EventPipe session on one process that writes a .nettrace file: CPU samples with stacks, GC, contention,
/// thread-pool and exception events, plus the JIT/loader events and the rundown that let an analyser name methods.
/// </summary>
public static class TraceSession
{
    private const string RuntimeProvider = "Microsoft-Windows-DotNETRuntime";
    private const string SampleProfiler = "Microsoft-DotNETCore-SampleProfiler";

    // Keyword bits of the runtime provider (ClrTraceEventParser.Keywords), written out so this folder does not
    // depend on the parser just to build a session.
    private const long GcKeyword = 0x1;
    private const long LoaderKeyword = 0x8;
    private const long JitKeyword = 0x10;
    private const long ExceptionKeyword = 0x8000;
    private const long ContentionKeyword = 0x4000;
    private const long ThreadingKeyword = 0x10000; // thread-pool worker and IO events
    private const long StackKeyword = 0x40000000;
    // .NET 9+: WaitHandleWaitStart/Stop around WaitHandle and Monitor waits (the runtime's own timing of a wait).
    private const long WaitHandleKeyword = 0x40000000000;
    // TplEventSource's TasksFlowActivityIds: EventSource start/stop events (a request's) get an activity ID that flows
    // with the async work, so a request's stop pairs with its start whatever thread ends it.
    private const string TplProvider = "System.Threading.Tasks.TplEventSource";
    private const long TasksFlowActivityIds = 0x80;

    public static IReadOnlyList<EventPipeProvider> Providers() =>
    [
        new(SampleProfiler, EventLevel.Informational),
        // Verbose: the wait events are (the other keywords' verbose events are few: allocation ticks, pool samples).
        new(RuntimeProvider, EventLevel.Verbose,
            GcKeyword | LoaderKeyword | JitKeyword | ExceptionKeyword | ContentionKeyword | ThreadingKeyword | StackKeyword
                | WaitHandleKeyword),
        // When each request started and stopped, and on which thread: blocked time per request (RequestTally).
        new(RequestEvents.Provider, EventLevel.Informational),
        new(TplProvider, EventLevel.Informational, TasksFlowActivityIds),
    ];

    /// <summary>Traces until the duration ends or <paramref name="ct"/> is cancelled; returns the bytes written.</summary>
    public static async Task<long> CollectAsync(TraceOptions options, CancellationToken ct)
    {
        var session = await StartAsync(options.ProcessId, ct);
        using (session)
        {
            await using var file = File.Create(options.OutputPath);
            // The stream ends only after Stop, when the runtime has written the rundown; copy until then.
            var copy = session.EventStream.CopyToAsync(file, CancellationToken.None);
            try
            {
                await Task.Delay(options.Duration, ct);
            }
            catch (OperationCanceledException)
            {
                // Cancelled early: stop and keep what was traced.
            }
            await StopAsync(session);
            await copy;
            return file.Length;
        }
    }

    /// <summary>
    /// A trace of <paramref name="length"/> (shorter when <paramref name="ct"/> fires) into <paramref name="path"/>, with
    /// the CPU the kernel charged the process and each of its threads meanwhile, all read on the process's host.
    /// </summary>
    public static async Task<TracedStretch> CaptureAsync(int pid, TimeSpan length, string path, CancellationToken ct)
    {
        var cpuBefore = CpuMs(pid);
        var threadsBefore = ThreadCpu.Read(pid);
        var clock = System.Diagnostics.Stopwatch.StartNew();
        var started = DateTimeOffset.UtcNow.ToUnixTimeMilliseconds();
        var bytes = await CollectAsync(new TraceOptions(pid, length, path), ct);
        var seconds = clock.Elapsed.TotalSeconds;
        var threads = ThreadCpu.Read(pid).Since(threadsBefore);
        return new TracedStretch(started, seconds, bytes, CpuMs(pid) - cpuBefore, threads);
    }

    private static double CpuMs(int pid)
    {
        try
        {
            return ProcStat.Read($"/proc/{pid}/stat").CpuTicks * 1000 / ProcStat.TicksPerSecond;
        }
        catch (Exception ex) when (ex is IOException or FormatException or UnauthorizedAccessException)
        {
            return double.NaN;
        }
    }

    private static async Task<EventPipeSession> StartAsync(int pid, CancellationToken ct)
    {
        try
        {
            var client = new DiagnosticsClient(pid);
            return await client.StartEventPipeSessionAsync(Providers(), requestRundown: true, circularBufferMB: 256, ct);
        }
        catch (Exception ex) when (ex is ServerNotAvailableException or DiagnosticsClientException or IOException
                                       or TimeoutException or UnauthorizedAccessException)
        {
            throw new PerfLabException(
                $"Cannot trace process {pid}: it is not a running .NET process that accepts diagnostics ({ex.Message}).",
                ExitCode.Unreachable, ex);
        }
    }

    private static async Task StopAsync(EventPipeSession session)
    {
        using var budget = new CancellationTokenSource(TimeSpan.FromSeconds(30));
        try
        {
            await session.StopAsync(budget.Token);
        }
        catch (Exception ex) when (ex is OperationCanceledException or ServerNotAvailableException or IOException)
        {
            // The process went away or did not answer: the file holds what arrived before.
        }
    }
}
