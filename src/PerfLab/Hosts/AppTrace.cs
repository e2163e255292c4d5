using System.Globalization;
using System.Text.Json;
using PerfLab.Apps;
using PerfLab.Common;
using PerfLab.Tracing;

namespace PerfLab.Hosts;

/// <summary>
/// The app role's traces: on <c>trace MILLISECONDS</c> the EventPipe trace a local run takes
/// (<see cref="TraceSession.CaptureAsync"/>) is written on this host, where the app's diagnostics socket is, then sent
/// back as a <see cref="ChunkedFile"/> (<c>trace-chunk</c> lines, <c>trace-end</c>) and described by <c>traced JSON</c>
/// (a <see cref="TracedStretch"/>, its start on this host's clock); the file is deleted here once sent.
/// <c>trace-stop</c> ends a trace early and sends what was traced (Ctrl+C at the controller); <c>trace-failed MESSAGE</c>
/// when the process refused the session.
/// </summary>
internal sealed class AppTrace(int pid, RoleLines lines)
{
    private readonly CancellationTokenSource _abandon = new();
    private CancellationTokenSource? _stop;
    private Task? _running;

    public async Task HandleAsync(string line)
    {
        if (line.StartsWith("trace ", StringComparison.Ordinal)
            && long.TryParse(line["trace ".Length..], NumberStyles.None, CultureInfo.InvariantCulture, out var ms))
        {
            Start(TimeSpan.FromMilliseconds(ms));
        }
        else if (line == "trace-stop" && _stop is not null)
        {
            await _stop.CancelAsync();
        }
    }

    private void Start(TimeSpan length)
    {
        if (_running is { IsCompleted: false })
        {
            lines.Write("trace-failed", "a trace is already running");
            return;
        }
        _stop?.Dispose();
        var stop = _stop = CancellationTokenSource.CreateLinkedTokenSource(_abandon.Token);
        _running = Task.Run(() => TraceAsync(length, stop.Token), CancellationToken.None);
    }

    private async Task TraceAsync(TimeSpan length, CancellationToken stop)
    {
        string? path = null;
        try
        {
            var folder = RoleLines.PrivateFolder("traces");
            path = Path.Combine(folder,
                string.Create(CultureInfo.InvariantCulture, $"app-{Environment.ProcessId}-{DateTime.UtcNow:yyyyMMdd-HHmmss-fff}.nettrace"));
            var stretch = await TraceSession.CaptureAsync(pid, length, path, stop) with { AppModule = MainModule.Of(pid) };
            await using (var file = File.OpenRead(path))
            {
                // Stopped early, the trace still goes back; only a session that has ended sends nothing more.
                await ChunkedFile.SendAsync(lines, "trace", file, _abandon.Token);
            }
            lines.Write("traced", JsonSerializer.Serialize(stretch, RoleLines.Json));
        }
        catch (Exception ex) when ((ex is OperationCanceledException or IOException) && _abandon.IsCancellationRequested)
        {
            // The session ended mid-way: nobody is left to send the file to.
        }
        catch (Exception ex) when (ex is PerfLabException or IOException or UnauthorizedAccessException or OperationCanceledException)
        {
            lines.Write("trace-failed", ex.Message.Replace('\n', ' '));
        }
        finally
        {
            if (path is not null)
            {
                File.Delete(path);
            }
        }
    }

    /// <summary>The session has ended: a trace running stops, and nothing more is sent.</summary>
    public async Task AbandonAsync()
    {
        await _abandon.CancelAsync();
        if (_running is not null)
        {
            // A failure to say it failed (the session's output closed) is the session's end too.
            await _running.ConfigureAwait(ConfigureAwaitOptions.SuppressThrowing);
        }
        _stop?.Dispose();
        _abandon.Dispose();
    }
}
