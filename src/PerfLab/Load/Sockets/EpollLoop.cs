using System.Buffers.Binary;
using System.Diagnostics;
using System.Net.Sockets;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using PerfLab.Common;

namespace PerfLab.Load.Sockets;

/// <summary>
/// The generator's own event loop, as wrk's: one thread waits in epoll_wait on every connection it was given
/// (registered once, edge-triggered, for reading and writing) and hands each event to its <see cref="LoopSocket"/>,
/// whose waiting request resumes right there: parse, record, send the next request. Compared with the runtime's
/// socket engine (even with inline completions) there is no per-operation queue and lock, no dictionary look-up per
/// event, and no read tried before the response's event came (that read fails with EAGAIN on every request).
/// The loops are made once per process, on first use, and live as long as it (background threads, idle in the
/// kernel between runs), as the runtime's socket engine does. Each loop also keeps its users' paced sends
/// (<see cref="LoopTimers"/>): its wait ends at the earliest (to the nanosecond with epoll_pwait2, else at the next
/// whole millisecond), and an eventfd, registered like a socket, wakes it when another thread arms an earlier one.
/// A timer further away than <see cref="FarTicks"/> (the sampler's next second, the watchdog's next look) is armed once
/// in a timerfd instead, and the loop's waits stay untimed: every epoll wait with a timeout that sleeps arms and
/// cancels a kernel timer, which on a virtual machine reprograms its timer device (measured in docs/benchmarks/load-engine-loop.md).
/// </summary>
internal sealed class EpollLoop
{
    /// <summary>The name of a loop's thread (at most 15 characters, what Linux keeps of it).</summary>
    public const string ThreadName = "perflab sockets";

    /// <summary>The environment variable that, set to "runtime", turns the loops off.</summary>
    public const string SwitchVariable = "PERFLAB_SOCKETS";

    private const int BatchSize = 256;
    private const ulong WakeSlot = ulong.MaxValue; // the eventfd's event: no socket's slot
    private const ulong TimerSlot = ulong.MaxValue - 1; // the timerfd's event
    private static readonly byte[] s_noEvent = new byte[16]; // EPOLL_CTL_DEL ignores it (kernels before 2.6.9 wanted one)
    private static readonly Lazy<EpollLoop[]?> s_loops = new(StartLoops);
    private static int s_next;
    private static bool s_nanosecondWaits;

    // struct epoll_event is packed (12 bytes) on x64, naturally aligned (16 bytes) on Arm64.
    private static readonly int s_eventSize = RuntimeInformation.ProcessArchitecture switch
    {
        Architecture.X64 => 12,
        Architecture.Arm64 => 16,
        _ => 0,
    };

    private readonly int _epoll;
    private readonly int _wakeFd;
    private readonly int _timerFd;
    private readonly long[] _timerSpec = new long[4];
    private int _threadId;
    private long _timerFdDue = long.MaxValue; // the Stopwatch timestamp the timerfd is armed for
    private readonly Lock _gate = new();
    private readonly Stack<int> _freeSlots = new();
    private LoopSocket?[] _sockets = new LoopSocket?[64];
    private int _usedSlots;

    private EpollLoop(int epoll, int wakeFd)
    {
        _epoll = epoll;
        _wakeFd = wakeFd;
        Timers = new LoopTimers(Wake);
        AddWatch(wakeFd, LibC.EpollIn | LibC.EpollEt, WakeSlot);
        // Without a timerfd every timer is the wait's timeout, as before.
        _timerFd = LibC.timerfd_create(LibC.ClockMonotonic, LibC.TfdNonBlock | LibC.TfdCloExec);
        if (_timerFd >= 0)
        {
            AddWatch(_timerFd, LibC.EpollIn | LibC.EpollEt, TimerSlot);
        }
    }

    /// <summary>How far away a timer is armed in the timerfd rather than as the wait's timeout: 20 ms.</summary>
    internal static readonly long FarTicks = Stopwatch.Frequency / 50;

    /// <summary>The paced sends this loop's thread makes.</summary>
    public LoopTimers Timers { get; }

    /// <summary>Whether this process uses its own event loops (Linux on x64 or Arm64).</summary>
    public static bool Available => s_loops.Value is not null;

    /// <summary>The kernel thread ids of the loops' threads, once they run; empty before, or where there are no loops.</summary>
    public static IReadOnlyList<int> ThreadIds =>
        s_loops.IsValueCreated && s_loops.Value is { } loops
            ? [.. loops.Select(l => Volatile.Read(ref l._threadId)).Where(t => t > 0)]
            : [];

    /// <summary>The first loop, for the engine's own periodic work (sampling, the watchdog); null where there is none.</summary>
    public static EpollLoop? First => s_loops.Value?[0];

    /// <summary>The loop for a new connection, round robin; null where there is none.</summary>
    public static EpollLoop? Next() =>
        s_loops.Value is { } loops ? loops[(int)((uint)Interlocked.Increment(ref s_next) % (uint)loops.Length)] : null;

    /// <summary>
    /// Half the cores this process may run on, at least one: the generator shares its machine with the app more often
    /// than not, and one loop drives tens of thousands of requests a second (wrk's default is one thread too).
    /// <c>PERFLAB_SOCKETS=runtime</c> keeps the runtime's socket engine instead: the comparison in docs/benchmarks/load-engine.md,
    /// and a way around the loop should it ever misbehave somewhere.
    /// </summary>
    private static EpollLoop[]? StartLoops()
    {
        if (!OperatingSystem.IsLinux() || s_eventSize == 0 || Environment.GetEnvironmentVariable(SwitchVariable) == "runtime")
        {
            return null;
        }
        var loops = new EpollLoop[Math.Max(1, Environment.ProcessorCount / 2)];
        try
        {
            for (var i = 0; i < loops.Length; i++)
            {
                var epoll = LibC.epoll_create1(LibC.EpollCloExec);
                var wakeFd = LibC.eventfd(0, LibC.EfdNonBlock | LibC.EfdCloExec);
                if (epoll < 0 || wakeFd < 0)
                {
                    return null;
                }
                loops[i] = new EpollLoop(epoll, wakeFd);
            }
        }
        catch (Exception ex) when (ex is DllNotFoundException or EntryPointNotFoundException or SocketException)
        {
            return null;
        }
        s_nanosecondWaits = CanWaitNanoseconds(loops[0]._epoll);
        foreach (var loop in loops)
        {
            new Thread(loop.Run) { IsBackground = true, Name = ThreadName }.Start();
        }
        return loops;
    }

    /// <summary>Watches <paramref name="fd"/> for <paramref name="socket"/>; returns the slot to give <see cref="Unregister"/>.</summary>
    public int Register(LoopSocket socket, int fd)
    {
        int slot;
        lock (_gate)
        {
            slot = _freeSlots.Count > 0 ? _freeSlots.Pop() : _usedSlots++;
            if (slot == _sockets.Length)
            {
                var grown = new LoopSocket?[_sockets.Length * 2];
                Array.Copy(_sockets, grown, _sockets.Length);
                Volatile.Write(ref _sockets, grown);
            }
            Volatile.Write(ref _sockets[slot], socket);
        }
        try
        {
            AddWatch(fd, LibC.EpollIn | LibC.EpollOut | LibC.EpollRdHup | LibC.EpollEt, (ulong)slot);
        }
        catch (SocketException)
        {
            Release(slot);
            throw;
        }
        return slot;
    }

    private void AddWatch(int fd, uint events, ulong slot)
    {
        var ev = new byte[s_eventSize];
        BinaryPrimitives.WriteUInt32LittleEndian(ev, events);
        BinaryPrimitives.WriteUInt64LittleEndian(ev.AsSpan(s_eventSize - 8), slot);
        if (LibC.epoll_ctl(_epoll, LibC.EpollCtlAdd, fd, ev) < 0)
        {
            throw LibC.Error(Marshal.GetLastPInvokeError());
        }
    }

    /// <summary>Stops watching <paramref name="fd"/> (before it is closed, so the number can be reused safely).</summary>
    public void Unregister(int slot, int fd)
    {
        _ = LibC.epoll_ctl(_epoll, LibC.EpollCtlDel, fd, s_noEvent);
        Release(slot);
    }

    private void Release(int slot)
    {
        lock (_gate)
        {
            Volatile.Write(ref _sockets[slot], null);
            _freeSlots.Push(slot);
        }
    }

    private void Run()
    {
        Timers.RunOn(Environment.CurrentManagedThreadId);
        // For good, on this thread only: what awaits here captures no execution context, so a closed user's exchange
        // (started without one, RequestSender) resumes by a direct call. A continuation that has one still runs in it.
        ExecutionContext.SuppressFlow();
        Volatile.Write(ref _threadId, CpuClock.CurrentThreadId());
        var size = s_eventSize;
        var events = new byte[BatchSize * size];
        var timeout = new long[2];
        while (true)
        {
            var count = Wait(events, timeout);
            if (count < 0)
            {
                if (Marshal.GetLastSystemError() == LibC.EIntr)
                {
                    continue;
                }
                return; // cannot happen with a valid epoll descriptor; the connections' watchdog then times them out
            }
            for (var i = 0; i < count; i++)
            {
                var at = events.AsSpan(i * size, size);
                var slot = BinaryPrimitives.ReadUInt64LittleEndian(at[(size - 8)..]);
                if (slot is WakeSlot or TimerSlot)
                {
                    long drained = 0;
                    _ = LibC.read(slot == WakeSlot ? _wakeFd : _timerFd, ref drained, sizeof(long));
                    if (slot == TimerSlot)
                    {
                        _timerFdDue = long.MaxValue; // expired: the next far timer arms it again
                    }
                    continue;
                }
                // Read per event: a connection's continuation may register another one (and grow the table) meanwhile.
                // A stale event for a slot reused since is a spurious readiness, which costs one read that finds nothing.
                var table = Volatile.Read(ref _sockets);
                if (slot < (ulong)table.Length && Volatile.Read(ref table[(int)slot]) is { } socket)
                {
                    socket.OnEvents(BinaryPrimitives.ReadUInt32LittleEndian(at));
                }
            }
            // While the earliest timer is the one the timerfd holds and it has not fired, none is due: no clock read.
            if (Timers.NextDue() != _timerFdDue)
            {
                Timers.FireDue();
            }
        }
    }

    /// <summary>Waits for events until the earliest timer is due (for ever when none is armed).</summary>
    private int Wait(byte[] events, long[] timeout)
    {
        var due = Timers.NextDue();
        if (due == long.MaxValue || due == _timerFdDue)
        {
            return LibC.epoll_wait(_epoll, ref events[0], BatchSize, -1); // none armed, or the timerfd ends the wait
        }
        var ticks = due - Stopwatch.GetTimestamp();
        if (ticks <= 0)
        {
            return LibC.epoll_wait(_epoll, ref events[0], BatchSize, 0);
        }
        if (ticks > FarTicks && _timerFd >= 0 && ArmTimerFd(due, ticks))
        {
            return LibC.epoll_wait(_epoll, ref events[0], BatchSize, -1);
        }
        if (!s_nanosecondWaits)
        {
            // Rounded up: a send before its time would understate its latency.
            var ms = Math.Ceiling(ticks * 1000.0 / Stopwatch.Frequency);
            return LibC.epoll_wait(_epoll, ref events[0], BatchSize, (int)Math.Min(int.MaxValue, ms));
        }
        var nanoseconds = (long)Math.Ceiling(ticks * (1e9 / Stopwatch.Frequency));
        timeout[0] = nanoseconds / 1_000_000_000;
        timeout[1] = nanoseconds % 1_000_000_000;
        return LibC.epoll_pwait2(_epoll, ref events[0], BatchSize, ref timeout[0], 0);
    }

    /// <summary>
    /// Arms the timerfd for <paramref name="due"/>, <paramref name="ticks"/> from now (<see cref="Wait"/> calls it only
    /// for a due it does not hold already); false when it could not be (the wait then takes the timeout).
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveOptimization)] // reached once a second (the sampler's wait): no tier-up in the window
    private bool ArmTimerFd(long due, long ticks)
    {
        var nanoseconds = (long)Math.Ceiling(ticks * (1e9 / Stopwatch.Frequency)); // rounded up: never before its time
        _timerSpec[2] = nanoseconds / 1_000_000_000;
        _timerSpec[3] = nanoseconds % 1_000_000_000;
        if (LibC.timerfd_settime(_timerFd, 0, _timerSpec, 0) != 0)
        {
            return false;
        }
        _timerFdDue = due;
        return true;
    }

    private void Wake()
    {
        long one = 1;
        _ = LibC.write(_wakeFd, ref one, sizeof(long));
    }

    /// <summary>Whether epoll_pwait2 works here (glibc 2.35 and Linux 5.11 on, no filter refusing it): a zero wait tells.</summary>
    private static bool CanWaitNanoseconds(int epoll)
    {
        try
        {
            var events = new byte[s_eventSize];
            var zero = new long[2];
            return LibC.epoll_pwait2(epoll, ref events[0], 1, ref zero[0], 0) >= 0;
        }
        catch (EntryPointNotFoundException)
        {
            return false;
        }
    }
}
