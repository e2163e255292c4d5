using System.Diagnostics;
using System.Globalization;
using PerfLab.Common;

namespace PerfLab.Hosts;

/// <summary>
/// The controller's end of a long-lived role (<c>perflab host app</c>, <c>perflab host db</c>) in its ssh session. The
/// role speaks lines: <c>say TEXT</c> (progress, passed on), <c>log TEXT</c> (kept: its last lines explain a failure),
/// <c>ready DETAILS</c> once it serves, <c>failed MESSAGE</c> when it cannot. Disposing closes the session's input:
/// the role stops what it started and exits, and a role that does not within its grace is cut off with its session.
/// </summary>
internal sealed class RoleSession : IAsyncDisposable
{
    private const int KeptLogLines = 40;

    private readonly Process _process;
    private readonly Task<string> _stderr;
    private readonly TaskCompletionSource<string> _ready = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private readonly Queue<string> _log = new();
    private readonly IProgress<string>? _say;
    private readonly Dictionary<string, Action<string>> _handlers = new(StringComparer.Ordinal);
    private readonly Task _reading;
    private readonly IDisposable _beat;
    private readonly HeartbeatWatch _watch;
    private readonly CancellationTokenSource _ended = new();
    private string? _failed;
    private long _asked;
    private volatile bool _outputEnded;
    private volatile bool _closing;

    private RoleSession(HostRef host, string what, Process process, string? input, IProgress<string>? say, TimeSpan? silence)
    {
        Host = host;
        What = what;
        _process = process;
        _say = say;
        _stderr = process.StandardError.ReadToEndAsync();
        // Its first line before the first beat, which the timer sends at once from another thread: two writers at once
        // once split the app's launch line with a heartbeat (the role read ":..." as its JSON) or failed the write. A
        // session whose input is already closed fails its ready wait, naming why.
        if (input is not null)
        {
            Send(input);
        }
        // The role ends itself when these stop coming (Heartbeat): a cut link leaves nothing running there.
        _beat = Heartbeat.Beat(() => Send(Heartbeat.Line));
        // And its own stop coming: the session is ended here, so whatever waits on it learns at once, naming the host.
        _watch = new HeartbeatWatch(() => Cut(), silence);
        // Read last: the reader hears the role's first heartbeat on another thread, and a busy host once let it call
        // the watch before this constructor had set it (a NullReferenceException ended the session's reading).
        _reading = ReadAsync();
    }

    public HostRef Host { get; }

    /// <summary>The role in words, for messages ("the app", "PostgreSQL").</summary>
    public string What { get; }

    /// <summary>The session has ended (the role exited, was killed, or the connection dropped).</summary>
    public bool HasExited => _process.HasExited;

    public int ExitCode => _process.HasExited ? _process.ExitCode : 0;

    /// <summary>Completes when the role's output ends: it exited, was killed, or the connection dropped.</summary>
    public Task Ended => _reading;

    /// <summary>Cancelled when the role's output ends, as <see cref="Ended"/> completes: what waits on the role stops at once.</summary>
    public CancellationToken EndedToken => _ended.Token;

    /// <summary>
    /// Why the role was lost mid-session, in words, or null: it went silent (<see cref="HeartbeatWatch"/>), or ssh gave
    /// its host up (ServerAlive: "Timeout, server ... not responding").
    /// </summary>
    public string? Lost => _watch.Fired ? _watch.Said
        : _process.HasExited && _process.ExitCode == SshClient.ConnectionFailed && _stderr.IsCompletedSuccessfully
            && _stderr.Result.Contains("not responding", StringComparison.Ordinal)
            ? "stopped answering (ssh heard nothing back: the link to its host is lost)"
            : null;

    /// <summary>
    /// The host and what was lost there when the role was lost mid-session ("db host 'db': lost mid-run: PostgreSQL sent
    /// no heartbeat ..."), its session ending before it was closed here included; or null.
    /// </summary>
    public string? LostMidRun => Lost is { } lost ? $"{Host}: lost mid-run: {What} {lost}"
        : _outputEnded && !_closing
            ? $"{Host}: lost mid-run: {What} (its role's session ended before the run closed it: "
                + $"{LastWords(_stderr.IsCompletedSuccessfully ? _stderr.Result : "")})"
            : null;

    // A session that ended on its own, in words: what the role said last (its failed line, else stderr's last), else its exit.
    private string LastWords(string stderr) =>
        _failed ?? stderr.Split('\n', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries).LastOrDefault()
            ?? (_process.HasExited
                ? string.Create(CultureInfo.InvariantCulture,
                    $"no message (its session exited with code {_process.ExitCode}, nothing on stderr)")
                : "no message");

    /// <summary>Starts <paramref name="command"/> on the host and sends it <paramref name="input"/> (one line) first.</summary>
    /// <param name="silence">How long a role may send no heartbeat: <see cref="Heartbeat.Lost"/> but in tests.</param>
    public static RoleSession Start(SshClient ssh, HostRef host, string what, string command, string? input, IProgress<string>? say,
        TimeSpan? silence = null)
    {
        var process = Process.Start(ssh.StartInfo(host, command))
            ?? throw new PerfLabException($"{host}: cannot start ssh.", Common.ExitCode.Environment);
        return new RoleSession(host, what, process, input, say, silence);
    }

    /// <summary>The role's ready line (what follows "ready "); a role that failed or ended first fails naming its host and why.</summary>
    public async Task<string> WaitReadyAsync(TimeSpan timeout, CancellationToken ct)
    {
        var done = await Task.WhenAny(_ready.Task, _reading, Task.Delay(timeout, ct)).ConfigureAwait(false);
        // Ready first, then ended: WhenAny may hear of the end first, since the ready task's news waits for a pool thread.
        if (done == _ready.Task || _ready.Task.IsCompletedSuccessfully)
        {
            return await _ready.Task.ConfigureAwait(false);
        }
        ct.ThrowIfCancellationRequested();
        await DisposeAsync().ConfigureAwait(false);
        throw await FailureAsync(done == _reading
                ? "ended before it was ready"
                : string.Create(CultureInfo.InvariantCulture, $"was not ready within {timeout.TotalSeconds:0} s"))
            .ConfigureAwait(false);
    }

    /// <summary>Sends the role one line (a request it understands); false when its session has ended.</summary>
    public bool Send(string line)
    {
        try
        {
            lock (_handlers)
            {
                _process.StandardInput.WriteLine(line);
                _process.StandardInput.Flush();
            }
            return true;
        }
        catch (Exception ex) when (ex is IOException or ObjectDisposedException or InvalidOperationException)
        {
            return false;
        }
    }

    /// <summary>
    /// Sends the request <paramref name="kind"/> (with its id: <see cref="RoleAsk"/>) and waits (blocking: a window's
    /// edge is read synchronously) for the role's answer to that request alone; null when the session has ended (before
    /// or while waiting: a host lost mid-wait answers at once, not after the timeout) or no answer came within
    /// <paramref name="timeout"/>. An earlier request's late answer is dropped, never taken as this one's.
    /// </summary>
    public string? Ask(string kind, TimeSpan timeout)
    {
        var ask = new RoleAsk(kind, Interlocked.Increment(ref _asked));
        var answer = new TaskCompletionSource<string>(TaskCreationOptions.RunContinuationsAsynchronously);
        Handle(kind, rest =>
        {
            if (ask.AnswerIn(rest) is { } mine)
            {
                answer.TrySetResult(mine);
            }
        });
        try
        {
            return Send(ask.ToString()) && Task.WaitAny([answer.Task, _reading], timeout) == 0 ? answer.Task.Result : null;
        }
        finally
        {
            Handle(kind, null);
        }
    }

    /// <summary>
    /// Gives every later line of this kind (what follows the kind word) to <paramref name="handler"/>; null: ignore them
    /// again.
    /// </summary>
    public void Handle(string kind, Action<string>? handler)
    {
        lock (_handlers)
        {
            if (handler is null)
            {
                _handlers.Remove(kind);
            }
            else
            {
                _handlers[kind] = handler;
            }
        }
    }

    /// <summary>The last lines of the role's log it sent, each indented as a SUT's log tail is.</summary>
    public string TailOfLog(int lines)
    {
        lock (_log)
        {
            return string.Join(Environment.NewLine, _log.TakeLast(lines).Select(l => "  | " + l));
        }
    }

    private async Task<PerfLabException> FailureAsync(string what)
    {
        var stderr = (await _stderr.ConfigureAwait(false)).Trim();
        if (_process.ExitCode == SshClient.ConnectionFailed && _failed is null && Lost is null)
        {
            return SshClient.Failure(Host, new HostOutput(_process.ExitCode, "", stderr));
        }
        // A session that ended saying nothing is named by its exit: the role's own code, or a signal's (128 + N).
        var why = _failed is null && Lost is { } lost ? lost : LastWords(stderr);
        var tail = TailOfLog(15);
        return new PerfLabException($"{Host}: {What} {what}: {why}{(tail.Length > 0 ? Environment.NewLine + tail : "")}",
            Common.ExitCode.Failed);
    }

    private async Task ReadAsync()
    {
        try
        {
            // On a thread of its own, as the heartbeat is sent: a thread pool a busy load keeps full must not leave the
            // role's lines unread until the watch takes it for lost (CI saw a trace cut mid-transfer so).
            await Task.Factory.StartNew(ReadLines, CancellationToken.None, TaskCreationOptions.LongRunning, TaskScheduler.Default)
                .ConfigureAwait(false);
        }
        finally
        {
            // Its output ends a moment before its exit is seen: whoever waits on its end reads HasExited next.
            using var exit = new CancellationTokenSource(TimeSpan.FromSeconds(5));
            try
            {
                await _process.WaitForExitAsync(exit.Token).ConfigureAwait(false);
            }
            catch (OperationCanceledException)
            {
                // Its output closed and it runs on: the session is still over for its controller.
            }
            // And its last words on stderr read, for LostMidRun (a process's exit closes it; something it left may not).
            await Task.WhenAny(_stderr, Task.Delay(TimeSpan.FromSeconds(1))).ConfigureAwait(false);
            _outputEnded = true;
            await _ended.CancelAsync().ConfigureAwait(false);
        }
    }

    private void ReadLines()
    {
        while (_process.StandardOutput.ReadLine() is { } line)
        {
            _watch.Spoke();
            var (kind, rest) = line.IndexOf(' ', StringComparison.Ordinal) is var space and > 0
                ? (line[..space], line[(space + 1)..])
                : (line, "");
            switch (kind)
            {
                case Heartbeat.Line:
                    _watch.Heard();
                    break;
                case "ready":
                    _ready.TrySetResult(rest);
                    break;
                case "say":
                    _say?.Report($"{Host.Destination}: {rest}");
                    break;
                case "failed":
                    _failed = _failed is null ? rest : _failed + Environment.NewLine + rest;
                    break;
                case "log":
                    lock (_log)
                    {
                        _log.Enqueue(rest);
                        while (_log.Count > KeptLogLines)
                        {
                            _log.Dequeue();
                        }
                    }
                    break;
                default:
                    Action<string>? handler;
                    lock (_handlers)
                    {
                        handler = _handlers.GetValueOrDefault(kind);
                    }
                    handler?.Invoke(rest);
                    break;
            }
        }
    }

    /// <summary>Closes the role's input and waits (20 s: PostgreSQL's shutdown) for its session to end; then ends the session.</summary>
    public async ValueTask DisposeAsync()
    {
        _closing = true;
        _watch.Dispose();
        _beat.Dispose();
        try
        {
            _process.StandardInput.Close();
        }
        catch (IOException)
        {
        }
        using var grace = new CancellationTokenSource(TimeSpan.FromSeconds(20));
        try
        {
            await _process.WaitForExitAsync(grace.Token).ConfigureAwait(false);
        }
        catch (OperationCanceledException)
        {
            Cut();
        }
        await _reading.ConfigureAwait(false);
    }

    /// <summary>Ends the session here (its ssh): the role, hearing no heartbeat, ends itself and what it started.</summary>
    private void Cut()
    {
        try
        {
            _process.Kill(entireProcessTree: true);
        }
        catch (InvalidOperationException)
        {
            // Ended already.
        }
    }
}
