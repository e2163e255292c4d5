using System.Diagnostics;
using System.Globalization;
using System.Text.Json;
using PerfLab.Common;
using PerfLab.Load;

namespace PerfLab.Hosts;

/// <summary>
/// The load role on its host (<c>perflab host load</c>), speaking a line protocol over its ssh session. In: the
/// controller's load plan (one JSON line, <see cref="PlanWire"/>), then <c>go UNIX-MS</c> (the common start, on this
/// host's clock). Out: <c>ready</c>; <c>hdr LINE</c> for every line of an HdrHistogram interval log (one interval per
/// second and scenario, tagged with the scenario); <c>measuring</c> and <c>measured</c> as the measured window opens and
/// closes (the controller reads the app's CPU then); at the end <c>window LINE</c> per scenario (the measured window's
/// histogram, and the uncorrected one as SCENARIO.uncorrected) and <c>result JSON</c> (this generator's own figures, its
/// CPU included). End of input at any moment stops the run: a closed session or Ctrl+C at the controller leaves nothing here.
/// </summary>
internal static class GeneratorRole
{
    public const string UncorrectedSuffix = ".uncorrected";

    private static readonly JsonSerializerOptions OneLine = new(LoadSummary.JsonOptions) { WriteIndented = false };

    public static async Task<int> RunAsync(LoadPlan plan, LoadShare share, TextReader input, TextWriter output, CancellationToken ct)
    {
        // perflab's own cold start before the barrier, not after it: every generator then starts when told.
        await GeneratorPrimer.EnsurePrimedAsync(ct).ConfigureAwait(false);
        output.WriteLine("ready");
        output.Flush();
        var go = await input.ReadLineAsync(ct).ConfigureAwait(false);
        if (go is null || !go.StartsWith("go ", StringComparison.Ordinal)
            || !long.TryParse(go.AsSpan(3), NumberStyles.Integer, CultureInfo.InvariantCulture, out var startMs))
        {
            return (int)ExitCode.Interrupted;
        }
        using var stop = CancellationTokenSource.CreateLinkedTokenSource(ct);
        // Console.In reads synchronously even through ReadLineAsync: the watcher gets a thread of its own.
        _ = Task.Run(() => WatchInputAsync(input, stop), CancellationToken.None);
        var start = DateTimeOffset.FromUnixTimeMilliseconds(startMs) + share.Phase(plan);
        await WaitUntilAsync(start, stop.Token).ConfigureAwait(false);
        var log = new IntervalStream(output, DateTimeOffset.UtcNow);
        var result = await LoadEngine.RunAsync(plan with { Probe = new WindowLines(output) }, log, stop.Token).ConfigureAwait(false);
        lock (output)
        {
            foreach (var s in result.Scenarios)
            {
                WriteWindow(output, result, s.Name, s.Histogram);
                WriteWindow(output, result, s.Name + UncorrectedSuffix, s.UncorrectedHistogram);
            }
            output.WriteLine("result " + JsonSerializer.Serialize(result, OneLine));
            output.Flush();
        }
        return (int)(result.Incomplete ? ExitCode.Failed : ExitCode.Success);
    }

    private static void WriteWindow(TextWriter output, LoadResult result, string tag, LatencyHistogram? latency)
    {
        if (latency is not null)
        {
            output.Write("window " + IntervalLogWriter.Line(new LogInterval(result.MeasuredFromUtc, result.EndedUtc, tag, latency)));
        }
    }

    /// <summary>
    /// End of input (the session closed, the controller stopped) cancels
    /// the run; a run that does not end within 5 s more ends the process.
    /// </summary>
    private static async Task WatchInputAsync(TextReader input, CancellationTokenSource stop)
    {
        try
        {
            while (await input.ReadLineAsync().ConfigureAwait(false) is not null)
            {
            }
        }
        catch (IOException)
        {
        }
        await stop.CancelAsync().ConfigureAwait(false);
        await Task.Delay(TimeSpan.FromSeconds(5)).ConfigureAwait(false);
        Environment.Exit((int)ExitCode.Interrupted);
    }

    /// <summary>Sleeps most of the way, then spins the last 2 ms: the start barrier is only as good as the wake-up.</summary>
    private static async Task WaitUntilAsync(DateTimeOffset when, CancellationToken ct)
    {
        var left = when - DateTimeOffset.UtcNow;
        if (left > TimeSpan.FromMilliseconds(2))
        {
            await Task.Delay(left - TimeSpan.FromMilliseconds(2), ct).ConfigureAwait(false);
        }
        var spin = Stopwatch.StartNew();
        while (DateTimeOffset.UtcNow < when && spin.Elapsed < TimeSpan.FromMilliseconds(50))
        {
            Thread.SpinWait(50);
        }
    }

    /// <summary>Each second's histograms, as the sampler closes them, out as interval-log lines.</summary>
    private sealed class IntervalStream : IProgress<LoadProgress>
    {
        private readonly TextWriter _output;
        private readonly PrefixWriter _log;
        private readonly IntervalLogWriter _writer;

        public IntervalStream(TextWriter output, DateTimeOffset start)
        {
            _output = output;
            _log = new PrefixWriter(output, "hdr ");
            lock (_output)
            {
                _writer = new IntervalLogWriter(_log, start);
            }
        }

        public void Report(LoadProgress value)
        {
            lock (_output)
            {
                foreach (var s in value.Scenarios.Where(s => s.IntervalLatency is not null))
                {
                    _writer.Append(new LogInterval(value.IntervalStartUtc, value.IntervalEndUtc, s.Name, s.IntervalLatency!));
                }
                _output.Flush();
            }
        }
    }

    /// <summary>The measured window's edges, told to the controller as they happen.</summary>
    private sealed class WindowLines(TextWriter output) : IWindowProbe
    {
        public void WindowStarted() => Say("measuring");

        public void WindowEnded() => Say("measured");

        private void Say(string word)
        {
            lock (output)
            {
                output.WriteLine(word);
                output.Flush();
            }
        }
    }

    /// <summary>Puts a prefix before every line written through it.</summary>
    private sealed class PrefixWriter(TextWriter inner, string prefix) : TextWriter
    {
        private bool _lineStart = true;

        public override System.Text.Encoding Encoding => inner.Encoding;

        public override void Write(char value)
        {
            if (_lineStart)
            {
                inner.Write(prefix);
            }
            inner.Write(value);
            _lineStart = value == '\n';
        }

        public override void Flush() => inner.Flush();
    }
}
