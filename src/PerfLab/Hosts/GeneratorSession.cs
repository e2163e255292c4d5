using System.Diagnostics;
using System.Globalization;
using System.Text.Json;
using PerfLab.Common;
using PerfLab.Load;

namespace PerfLab.Hosts;

/// <summary>
/// The controller's end of one generator: the ssh session running <c>perflab host load</c> there, its output read line by
/// line into interval logs and a result. Closing it closes the session's input, which ends the role on the host.
/// </summary>
internal sealed class GeneratorSession : IDisposable
{
    private readonly Process _process;
    private readonly List<string> _log = [];
    private readonly List<string> _windows = [];
    private readonly Task<string> _stderr;
    private readonly TaskCompletionSource _ready = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private readonly Task _reading;
    private readonly Lock _input = new();
    private IDisposable? _beat;
    private readonly HeartbeatWatch _watch;
    private string? _result;

    private readonly IWindowProbe? _window;

    private GeneratorSession(HostRef host, Process process, IWindowProbe? window)
    {
        Host = host;
        _process = process;
        _window = window;
        _stderr = process.StandardError.ReadToEndAsync();
        // A generator gone silent voids the run at once, naming its host, rather than when its share's results are due.
        _watch = new HeartbeatWatch(() =>
        {
            try
            {
                _process.Kill(entireProcessTree: true);
            }
            catch (InvalidOperationException)
            {
            }
        });
        // On a thread of its own, as the heartbeat is sent: this machine's load keeps the thread pool busy, and a line left
        // unread there is a heartbeat the watch misses.
        _reading = Task.Factory.StartNew(Read, CancellationToken.None, TaskCreationOptions.LongRunning, TaskScheduler.Default);
    }

    public HostRef Host { get; }

    public Task Exited => _reading;

    /// <param name="plan">The whole load's plan, as <see cref="PlanWire"/> writes it: the role takes its share itself.</param>
    /// <param name="window">Told when this generator's measured window opens and closes.</param>
    public static GeneratorSession Start(SshClient ssh, HostRef host, string perflab, LoadShare share, string plan, IWindowProbe? window)
    {
        var command = string.Create(CultureInfo.InvariantCulture, $"{perflab} host load --index {share.Index} --of {share.Count}");
        var process = Process.Start(ssh.StartInfo(host, command))
            ?? throw new PerfLabException($"{host}: cannot start ssh.", ExitCode.Environment);
        var session = new GeneratorSession(host, process, window);
        session.Write(plan);
        // The role ends itself when these stop coming (Heartbeat): a cut link leaves nothing running there.
        session._beat = Heartbeat.Beat(() => session.Write(Heartbeat.Line));
        return session;
    }

    /// <summary>Waits for the role's "ready" (its plan read and checked); a role that ended instead fails naming the host.</summary>
    public async Task WaitReadyAsync(TimeSpan timeout, CancellationToken ct)
    {
        if (await Task.WhenAny(_ready.Task, _reading, Task.Delay(timeout, ct)).ConfigureAwait(false) != _ready.Task)
        {
            ct.ThrowIfCancellationRequested();
            throw await FailureAsync("did not get ready").ConfigureAwait(false);
        }
    }

    public void Go(DateTimeOffset localStart, double clockOffsetMs)
    {
        var remoteMs = localStart.ToUnixTimeMilliseconds() + (long)Math.Round(clockOffsetMs);
        Write(string.Create(CultureInfo.InvariantCulture, $"go {remoteMs}"));
    }

    private void Write(string line)
    {
        lock (_input)
        {
            _process.StandardInput.WriteLine(line);
            _process.StandardInput.Flush();
        }
    }

    /// <summary>Ends the role on its host: its input closes, it stops its load and reports what it measured.</summary>
    public void Stop()
    {
        _beat?.Dispose();
        _watch.Dispose();
        try
        {
            lock (_input)
            {
                _process.StandardInput.Close();
            }
        }
        catch (IOException)
        {
        }
    }

    /// <summary>
    /// What the generator measured, once its session has ended; a
    /// session that ended without a result fails naming the host.
    /// </summary>
    public async Task<GeneratorRun> ResultAsync()
    {
        await _reading.ConfigureAwait(false);
        await _process.WaitForExitAsync().ConfigureAwait(false);
        if (_result is null)
        {
            throw await FailureAsync("ended mid-run").ConfigureAwait(false);
        }
        var result = JsonSerializer.Deserialize<LoadResult>(_result, LoadSummary.JsonOptions)
            ?? throw new PerfLabException($"{Host}: sent an empty result.", ExitCode.Failed);
        return new GeneratorRun(Host, result, Tagged(IntervalLog.Read(string.Join('\n', _log))), Tagged(IntervalLog.Read(WindowLog())));
    }

    private string WindowLog() => string.Join('\n', _log.TakeWhile(l => l.StartsWith('#') || l.StartsWith('"')).Concat(_windows));

    private static List<LogInterval> Tagged(IReadOnlyList<LogInterval> intervals) => [.. intervals];

    private async Task<PerfLabException> FailureAsync(string what)
    {
        Stop();
        if (!_process.WaitForExit(5000))
        {
            _process.Kill(entireProcessTree: true);
        }
        var stderr = (await _stderr.ConfigureAwait(false)).Trim();
        if (_watch.Fired)
        {
            return new PerfLabException($"{Host}: the load generator {_watch.Said}; the run is void.", ExitCode.Failed);
        }
        // 255 is also what ssh returns when the remote command was killed by a signal: only a connection message says which.
        if (_process.ExitCode == SshClient.ConnectionFailed && stderr.Length > 0)
        {
            return SshClient.Failure(Host, new HostOutput(_process.ExitCode, "", stderr));
        }
        var message = stderr.Split('\n', StringSplitOptions.RemoveEmptyEntries).LastOrDefault()?.Trim();
        var exit = _process.ExitCode;
        return new PerfLabException(
            $"{Host}: the load generator {what} ({(exit == SshClient.ConnectionFailed
                ? "killed, or its session dropped"
                : string.Create(CultureInfo.InvariantCulture, $"exit {exit}"))})"
            + $"{(message is { Length: > 0 } ? ": " + message : "")}; the run is void.",
            ExitCode.Failed);
    }

    private void Read()
    {
        while (_process.StandardOutput.ReadLine() is { } line)
        {
            _watch.Spoke();
            if (line == Heartbeat.Line)
            {
                _watch.Heard();
            }
            else if (line == "ready")
            {
                _ready.TrySetResult();
            }
            else if (line == "measuring")
            {
                _window?.WindowStarted();
            }
            else if (line == "measured")
            {
                _window?.WindowEnded();
            }
            else if (line.StartsWith("hdr ", StringComparison.Ordinal))
            {
                _log.Add(line[4..]);
            }
            else if (line.StartsWith("window ", StringComparison.Ordinal))
            {
                _windows.Add(line[7..]);
            }
            else if (line.StartsWith("result ", StringComparison.Ordinal))
            {
                _result = line[7..];
            }
        }
    }

    public void Dispose()
    {
        Stop();
        if (!_process.HasExited && !_process.WaitForExit(10_000))
        {
            _process.Kill(entireProcessTree: true);
        }
        _process.Dispose();
    }
}
