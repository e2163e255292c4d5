using System.Diagnostics;
using System.Threading.Channels;

namespace PerfLab.Hosts;

/// <summary>
/// The heartbeat between the controller and a role, both ways over the role's ssh session: each side writes
/// <see cref="Line"/> every <see cref="Every"/>. A role that has heard one and then hears nothing for <see cref="Lost"/>
/// takes its input as ended (<see cref="HeartbeatInput"/>): it stops what it started and exits, as when the controller
/// closes it. So a link cut without a word (a partition, a controller gone) ends every role within seconds, whatever
/// TCP keepalive or the host's sshd (ClientAliveInterval) say; the controller's ssh notices the same (ServerAlive).
/// </summary>
internal static class Heartbeat
{
    public const string Line = "alive";

    public static readonly TimeSpan Every = TimeSpan.FromSeconds(2);

    /// <summary>Four beats missed: a busy host's pause never reaches it, a cut link ends a role well within 15 s.</summary>
    public static readonly TimeSpan Lost = TimeSpan.FromSeconds(8);

    /// <summary>
    /// Runs a role on this host's end of its session: its input with the controller's heartbeats taken out and watched,
    /// its token cancelled when the controller is lost as when Ctrl+C; its own heartbeat sent on its output meanwhile.
    /// </summary>
    public static async Task<int> ServeAsync(Func<TextReader, CancellationToken, Task<int>> role, CancellationToken ct)
    {
        using var input = new HeartbeatInput(Console.In);
        using var either = CancellationTokenSource.CreateLinkedTokenSource(ct, input.LostToken);
        var output = Console.Out;
        using var beat = Beat(() =>
        {
            // Console.Out, the writer every role locks for its own lines: a beat never splits one.
            lock (output)
            {
                output.WriteLine(Line);
                output.Flush();
            }
        });
        try
        {
            return await role(input, either.Token).ConfigureAwait(false);
        }
        finally
        {
            if (input.LostToken.IsCancellationRequested)
            {
                // Said where the controller may still hear it (a controller too busy to beat, not a cut link).
                lock (output)
                {
                    output.WriteLine(string.Create(System.Globalization.CultureInfo.InvariantCulture,
                        $"failed heard no heartbeat from the controller for {Lost.TotalSeconds:0} s: stopped what it started"));
                    output.Flush();
                }
            }
        }
    }

    /// <summary>Calls <paramref name="write"/> (one <see cref="Line"/>) now and every <see cref="Every"/> until disposed.</summary>
    public static IDisposable Beat(Action write) => new Beating(write);

    /// <summary>
    /// The beat on a thread of its own, not the pool's timer: a starved thread pool (a busy host, blocking waits) must not
    /// silence it, or the other side ends a role that is working.
    /// </summary>
    private sealed class Beating : IDisposable
    {
        private readonly CancellationTokenSource _stop = new();

        public Beating(Action write) =>
            new Thread(() => Run(write)) { IsBackground = true, Name = "perflab heartbeat" }.Start();

        public void Dispose() => _stop.Cancel();

        private void Run(Action write)
        {
            do
            {
                try
                {
                    write();
                }
                catch (Exception ex) when (ex is IOException or ObjectDisposedException or InvalidOperationException)
                {
                    // The other side is gone: its own watch, or the session's end, says so.
                }
            }
            while (!_stop.Token.WaitHandle.WaitOne(Every));
        }
    }
}

/// <summary>
/// A role's input as the controller sends it, heartbeats taken out: reads return null (the end of input) once the
/// input ends, or once a heartbeat was heard and none came for <see cref="Heartbeat.Lost"/>; <see cref="LostToken"/>
/// then fires too, for what a role does without reading (a db role seeding). A controller that sends no heartbeat (a
/// test driving a role by hand) is never taken as lost.
/// </summary>
internal sealed class HeartbeatInput : TextReader
{
    private readonly Channel<string> _lines = Channel.CreateUnbounded<string>();
    private readonly CancellationTokenSource _lost = new();
    private readonly Timer _watch;
    private long _lastBeat;

    public HeartbeatInput(TextReader input)
    {
        // Console.In blocks even through ReadLineAsync: the pump gets a thread of its own.
        _ = Task.Factory.StartNew(() => Pump(input), CancellationToken.None, TaskCreationOptions.LongRunning, TaskScheduler.Default);
        _watch = new Timer(_ => Watch(), null, Heartbeat.Every, Heartbeat.Every);
    }

    /// <summary>Fires when the controller's heartbeat stopped.</summary>
    public CancellationToken LostToken => _lost.Token;

    public override string? ReadLine() => ReadLineAsync(CancellationToken.None).AsTask().GetAwaiter().GetResult();

    public override Task<string?> ReadLineAsync() => ReadLineAsync(CancellationToken.None).AsTask();

    public override async ValueTask<string?> ReadLineAsync(CancellationToken cancellationToken)
    {
        try
        {
            return await _lines.Reader.ReadAsync(cancellationToken).ConfigureAwait(false);
        }
        catch (ChannelClosedException)
        {
            return null;
        }
        catch (OperationCanceledException) when (_lost.IsCancellationRequested)
        {
            // A read given the lost token (a role's own) ends as the input does.
            return null;
        }
    }

    private void Pump(TextReader input)
    {
        try
        {
            while (input.ReadLine() is { } line)
            {
                if (line == Heartbeat.Line)
                {
                    Volatile.Write(ref _lastBeat, Stopwatch.GetTimestamp());
                }
                else
                {
                    _lines.Writer.TryWrite(line);
                }
            }
        }
        catch (IOException)
        {
        }
        _lines.Writer.TryComplete();
    }

    private void Watch()
    {
        var last = Volatile.Read(ref _lastBeat);
        if (last != 0 && Stopwatch.GetElapsedTime(last) > Heartbeat.Lost)
        {
            // Lost before the input ends: a role that reads the end must find the controller lost, or it exits without
            // saying why (CI saw the app role end before it was ready with no reason, on a loaded host).
            _lost.Cancel();
            _lines.Writer.TryComplete();
            _watch.Dispose();
        }
    }

    protected override void Dispose(bool disposing)
    {
        if (disposing)
        {
            _watch.Dispose();
            _lost.Dispose();
        }
        base.Dispose(disposing);
    }
}

/// <summary>
/// The controller's watch on a role's heartbeat, the other way: once one <see cref="Heartbeat.Line"/> was heard, no line
/// for <see cref="Heartbeat.Lost"/> calls its action once (any line is a sign of life: a role sending a long file may hold
/// its output past a beat's turn). ssh's ServerAlive notices a host that stopped answering; this
/// notices a role that went silent while its host's sshd still answers (hung, stopped, starved), and a link lost
/// before ssh says so.
/// </summary>
internal sealed class HeartbeatWatch : IDisposable
{
    private readonly Timer _timer;
    private readonly Action _onLost;
    private long _lastBeat;
    private int _fired;

    /// <param name="lost">How long a silence ends the role: <see cref="Heartbeat.Lost"/> but in tests.</param>
    public HeartbeatWatch(Action onLost, TimeSpan? lost = null)
    {
        _onLost = onLost;
        Silence = lost ?? Heartbeat.Lost;
        var every = Silence / 4 < Heartbeat.Every ? Silence / 4 : Heartbeat.Every;
        _timer = new Timer(_ => Watch(), null, every, every);
    }

    public TimeSpan Silence { get; }

    /// <summary>The role went silent and the action was called.</summary>
    public bool Fired => Volatile.Read(ref _fired) != 0;

    /// <summary>In words, for the controller's message: "sent no heartbeat for 8 s".</summary>
    public string Said => string.Create(System.Globalization.CultureInfo.InvariantCulture,
        $"sent no heartbeat for {Silence.TotalSeconds:0.#} s (the link to its host is lost, or the role hangs)");

    public void Heard() => Volatile.Write(ref _lastBeat, Stopwatch.GetTimestamp());

    /// <summary>A line other than a heartbeat: a sign of life once the role has beaten (it does not arm the watch).</summary>
    public void Spoke()
    {
        if (Volatile.Read(ref _lastBeat) != 0)
        {
            Heard();
        }
    }

    private void Watch()
    {
        var last = Volatile.Read(ref _lastBeat);
        if (last != 0 && Stopwatch.GetElapsedTime(last) > Silence && Interlocked.Exchange(ref _fired, 1) == 0)
        {
            _timer.Dispose();
            _onLost();
        }
    }

    public void Dispose() => _timer.Dispose();
}
