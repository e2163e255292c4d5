using System.Globalization;
using Microsoft.Diagnostics.Tracing;
using Microsoft.Diagnostics.Tracing.Etlx;
using Microsoft.Diagnostics.Tracing.EventPipe;
using PerfLab.Common;

namespace PerfLab.Tracing;

/// <summary>
/// Reads a .nettrace (as <see cref="TraceSession"/> writes it) through TraceEvent's TraceLog, which resolves stacks
/// to method names from the trace's own JIT and rundown events, and sums it up as a <see cref="TraceProfile"/>.
/// </summary>
public static class TraceAnalysis
{
    /// <summary>Reads the trace; a missing or unreadable file throws <see cref="PerfLabException"/> (ExitCode.Usage).</summary>
    public static TraceProfile Analyze(string nettracePath, TraceAnalysisOptions? options = null)
    {
        options ??= new TraceAnalysisOptions();
        var etlx = Path.Combine(Path.GetTempPath(), $"perflab-{Guid.NewGuid():N}.etlx");
        try
        {
            Convert(nettracePath, etlx);
            using var log = new TraceLog(etlx);
            var events = new TraceEvents(log, options);
            var source = log.Events.GetSource();
            events.Subscribe(source);
            source.Process();
            return events.ToProfile();
        }
        finally
        {
            File.Delete(etlx);
        }
    }

    private static void Convert(string nettracePath, string etlx)
    {
        if (!File.Exists(nettracePath))
        {
            throw new PerfLabException($"{nettracePath}: no such file.", ExitCode.Usage);
        }
        try
        {
            TraceLog.CreateFromEventPipeDataFile(nettracePath, etlx, new TraceLogOptions { ContinueOnError = true });
        }
        catch (Exception ex) when (ex is not OutOfMemoryException)
        {
            // TraceEvent throws a variety of types (FormatException, SerializationException, ...) on a file that is not
            // a nettrace; any of them means the same thing to the user.
            throw new PerfLabException(
                $"{nettracePath} is not a readable .nettrace file ({ex.GetType().Name}: {ex.Message}). " +
                "Write one with `perflab trace collect`.", ExitCode.Usage, ex);
        }
    }

    /// <summary>The state one pass over the events builds.</summary>
    private sealed class TraceEvents(TraceLog log, TraceAnalysisOptions options)
    {
        private readonly StackCache _stacks = new(log);
        private readonly SampleTally _samples = new(new ComponentClassifier(options.App));
        private readonly ContentionTally _contention = new(options.ExampleFrames, options.App);
        private readonly WaitTally _waits = new(options.ExampleFrames, options.App);
        private readonly GcTally _gc = new();
        private readonly ThreadPoolTally _threadPool = new();
        private readonly RequestTally _requests = new();

        public void Subscribe(TraceLogEventSource source)
        {
            new SampleProfilerTraceEventParser(source).ThreadSample += e =>
            {
                var frames = _stacks.Frames(e);
                var managed = e.Type == ClrThreadSampleType.Managed;
                _samples.Add(e.ThreadID, e.TimeStampRelativeMSec, managed, frames);
                _requests.Sample(e.ThreadID, e.TimeStampRelativeMSec, _waits.Add(e.ThreadID, managed, frames));
            };
            RequestEvents.Subscribe(source, _requests);
            // .NET 9+: the runtime times WaitHandle and Monitor waits itself; the request tally takes them as exact.
            source.Clr.WaitHandleWaitStart += e =>
                _requests.WaitStart(e.ThreadID, e.TimeStampRelativeMSec, _waits.SiteOf(_stacks.Frames(e)));
            source.Clr.WaitHandleWaitStop += e => _requests.WaitStop(e.ThreadID, e.TimeStampRelativeMSec);
            source.Clr.ContentionStart += e => _contention.Start(e.ThreadID, e.TimeStampRelativeMSec, _stacks.Frames(e));
            source.Clr.ContentionStop += e => _contention.Stop(e.ThreadID, e.TimeStampRelativeMSec, e.DurationNs, _stacks.Frames(e));
            source.Clr.GCStart += e => _gc.Start(e.Depth);
            source.Clr.GCSuspendEEStart += e => _gc.Suspend(e.Reason, e.TimeStampRelativeMSec);
            source.Clr.GCRestartEEStop += e => _gc.Restart(e.TimeStampRelativeMSec);
            source.Clr.GCGlobalHeapHistory += e => _gc.Heaps(e.NumHeaps);
            source.Clr.ThreadPoolWorkerThreadAdjustmentAdjustment += e =>
                _threadPool.Adjust((int)e.Reason, e.NewWorkerThreadCount);
            source.Clr.ThreadPoolWorkerThreadStart += e => _threadPool.Observe(e.ActiveWorkerThreadCount);
            source.Clr.ThreadPoolWorkerThreadStop += e => _threadPool.Observe(e.ActiveWorkerThreadCount);
        }

        public TraceProfile ToProfile()
        {
            var traced = _samples.SpanMs > 0 ? _samples.SpanMs : log.SessionDuration.TotalMilliseconds;
            var tick = _samples.IntervalMs();
            var interval = _samples.IntervalMs(_gc.PauseMs);
            var components = _samples.Components(interval, _gc.PauseMs);
            var cpuMs = components.Sum(c => c.Ms);
            var gc = _gc.Summary(traced, cpuMs, _samples.GcSampleShare);
            var stacks = _samples.Stacks();
            var requests = _requests.Summary(options.TopStacks);
            return new TraceProfile(traced / 1000, interval, tick, _samples.Cpu, _samples.Waiting, components, gc,
                _contention.Sites(stacks, interval), WithHandlers(_waits.Sites(tick, requests)), _threadPool.Summary(),
                stacks.Take(options.TopStacks).ToList(), stacks, Warnings(), _waits.ThreadTime(tick), requests);
        }

        // From the app's assembly: a handler inlined into its endpoint delegate, named by the route the site blocked;
        // the native function a P/Invoke site's own frame calls.
        private List<BlockingWaitSite> WithHandlers(List<BlockingWaitSite> sites)
        {
            var assembly = AppAssembly();
            return assembly is null ? sites : sites.Select(s => s.Route is { } route && OffCpuCall.IsEndpointDelegate(s.Frame)
                ? s with { Handler = HandlerSource.Find(assembly, route.Path) }
                : s.Call == BlockingCalls.PInvoke.Name ? s with { Native = NativeCalls.Find(assembly, s.Frame) }
                : s).ToList();
        }

        // The app's main module as the trace's module events saw it loaded (the trace is read where the app ran).
        private string? AppAssembly()
        {
            var name = options.AppModule ?? options.AppNamespace;
            return string.IsNullOrEmpty(name) ? null : log.ModuleFiles
                .Where(m => string.Equals(Path.GetFileNameWithoutExtension(m.FilePath), name, StringComparison.OrdinalIgnoreCase))
                .Select(m => m.FilePath).FirstOrDefault();
        }

        private List<string> Warnings()
        {
            var warnings = new List<string>();
            if (_samples.Cpu == 0)
            {
                warnings.Add("no CPU samples: the trace was taken without the Microsoft-DotNETCore-SampleProfiler "
                    + "provider, or the process was idle.");
            }
            // Half the samples unnamed is far beyond the few IL stubs a complete trace leaves unnamed.
            if (_samples.UnnamedShare > 0.5)
            {
                warnings.Add(string.Create(CultureInfo.InvariantCulture,
                    $"{_samples.UnnamedShare * 100:F0} % of CPU samples have no method names: the trace lacks the rundown that names "
                        + $"methods (was the collection cut short?)."));
            }
            return warnings;
        }
    }

    /// <summary>Frames of each call stack, root first, named once per stack index.</summary>
    private sealed class StackCache(TraceLog log)
    {
        private static readonly string[] s_none = [];
        private readonly Dictionary<CallStackIndex, string[]> _byIndex = [];
        private readonly Dictionary<CodeAddressIndex, string> _names = [];

        public string[] Frames(TraceEvent e)
        {
            var index = e.CallStackIndex();
            if (index == CallStackIndex.Invalid)
            {
                return s_none;
            }
            if (!_byIndex.TryGetValue(index, out var frames))
            {
                var leafFirst = new List<string>();
                for (var i = index; i != CallStackIndex.Invalid; i = log.CallStacks.Caller(i))
                {
                    leafFirst.Add(Name(log.CallStacks.CodeAddressIndex(i)));
                }
                leafFirst.Reverse();
                frames = leafFirst.ToArray();
                _byIndex.Add(index, frames);
            }
            return frames;
        }

        private string Name(CodeAddressIndex address)
        {
            if (!_names.TryGetValue(address, out var name))
            {
                var method = log.CodeAddresses.MethodIndex(address);
                var module = log.CodeAddresses.ModuleFile(address)?.Name ?? "?";
                var full = method == MethodIndex.Invalid ? "?" : log.CodeAddresses.Methods.FullMethodName(method);
                name = module + "!" + FrameNames.Readable(string.IsNullOrEmpty(full) ? "?" : full);
                _names.Add(address, name);
            }
            return name;
        }
    }
}
