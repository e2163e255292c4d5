using System.Globalization;
using System.Text.Json;
using PerfLab.Common;
using PerfLab.Tracing;

namespace PerfLab.Hosts;

/// <summary>
/// The controller's end of <see cref="AppTrace"/>: asks the app's role for a trace, writes the file it sends back to the
/// path asked for here, and returns its stretch with its start on this machine's clock; the analysis then reads it as
/// a local trace. A file that does not arrive whole fails naming the host and is not left behind.
/// </summary>
internal static class RemoteTrace
{
    // After the trace: its rundown and the file's way here (10-15 MB as base64: about a second between namespaces,
    // minutes only on a slow link).
    private static readonly TimeSpan Transfer = TimeSpan.FromMinutes(5);

    /// <param name="say">Told how long the file took to come back, once it has.</param>
    public static async Task<TracedStretch> TraceAsync(RoleSession session, ClockOffset clock, TimeSpan length, string path,
        IProgress<string>? say, CancellationToken ct)
    {
        var described = new TaskCompletionSource<TracedStretch>(TaskCreationOptions.RunContinuationsAsynchronously);
        var whole = false;
        try
        {
            await using var file = File.Create(path);
            using var receiver = new ChunkReceiver(session.Host, "the app's trace", file);
            receiver.Attach(session, "trace");
            session.Handle("traced", json => Describe(described, json, session.Host));
            session.Handle("trace-failed", message => described.TrySetException(
                new PerfLabException($"{session.Host}: the app could not be traced there: {message}", ExitCode.Unreachable)));
            if (!session.Send(string.Create(CultureInfo.InvariantCulture, $"trace {length.TotalMilliseconds:0}")))
            {
                throw new PerfLabException($"{session.Host}: the app's session has ended.", ExitCode.Failed);
            }
            var asked = System.Diagnostics.Stopwatch.StartNew();
            var stretch = await DescribedAsync(session, receiver, described.Task, length + Transfer, ct);
            // Its lines come in order: the end line, checked, came before the description.
            var bytes = await receiver.Completed;
            whole = true;
            say?.Report(string.Create(CultureInfo.InvariantCulture,
                $"{session.Host.Destination}: its {stretch.Seconds:F1} s trace came back ({bytes / 1e6:F1} MB), "
                    + $"{asked.Elapsed.TotalSeconds - stretch.Seconds:F1} s after it ended"));
            return stretch with { StartedUnixMs = clock.Here(stretch.StartedUnixMs) };
        }
        finally
        {
            session.Handle("traced", null);
            session.Handle("trace-failed", null);
            if (!whole)
            {
                File.Delete(path);
            }
        }
    }

    private static void Describe(TaskCompletionSource<TracedStretch> described, string json, HostRef host)
    {
        try
        {
            described.TrySetResult(JsonSerializer.Deserialize<TracedStretch>(json, RoleLines.Json)
                ?? throw new JsonException("null"));
        }
        catch (JsonException ex)
        {
            described.TrySetException(new PerfLabException($"{host}: the app role described its trace as '{json}': {ex.Message}",
                ExitCode.Failed));
        }
    }

    private static async Task<TracedStretch> DescribedAsync(RoleSession session, ChunkReceiver receiver, Task<TracedStretch> described,
        TimeSpan within, CancellationToken ct)
    {
        Task done;
        try
        {
            done = await Task.WhenAny(described, session.Ended).WaitAsync(within, ct);
        }
        catch (OperationCanceledException)
        {
            // Ctrl+C: the role ends its trace now; what it sends after that is not waited for.
            session.Send("trace-stop");
            throw;
        }
        catch (TimeoutException)
        {
            throw new PerfLabException(string.Create(CultureInfo.InvariantCulture,
                $"{session.Host}: the app's trace did not come back within {within.TotalSeconds:0} s."), ExitCode.Unreachable);
        }
        if (done != described)
        {
            receiver.SessionEnded();
            if (session.LostMidRun is { } lost)
            {
                // Its last chunk may have been cut mid-line: the loss is the cause, not a garbled file.
                throw new PerfLabException($"{lost}; its trace did not come back whole.", ExitCode.Unreachable);
            }
            await receiver.Completed;
            throw new PerfLabException($"{session.Host}: the app's session ended before its trace was described.", ExitCode.Unreachable);
        }
        var stretch = await described;
        if (!receiver.Completed.IsCompleted)
        {
            throw new PerfLabException($"{session.Host}: the app role described a trace it did not send.", ExitCode.Failed);
        }
        return stretch;
    }
}
