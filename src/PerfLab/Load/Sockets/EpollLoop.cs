using System.Buffers.Binary;
using System.Runtime.InteropServices;

namespace PerfLab.Load.Sockets;

/// <summary>
/// The generator's own event loop, as wrk's: one thread waits in epoll_wait on every connection it was given
/// (registered once, edge-triggered, for reading and writing) and hands each event to its <see cref="LoopSocket"/>,
/// whose waiting request resumes right there: parse, record, send the next request. Compared with the runtime's
/// socket engine (even with inline completions) there is no per-operation queue and lock, no dictionary look-up per
/// event, and no read tried before the response's event came (that read fails with EAGAIN on every request).
/// The loops are made once per process, on first use, and live as long as it (background threads, idle in the
/// kernel between runs), as the runtime's socket engine does.
/// </summary>
internal sealed class EpollLoop
{
    /// <summary>The name of a loop's thread (at most 15 characters, what Linux keeps of it).</summary>
    public const string ThreadName = "perflab sockets";

    /// <summary>The environment variable that, set to "runtime", turns the loops off.</summary>
    public const string SwitchVariable = "PERFLAB_SOCKETS";

    private const int BatchSize = 256;
    private static readonly byte[] s_noEvent = new byte[16]; // EPOLL_CTL_DEL ignores it (kernels before 2.6.9 wanted one)
    private static readonly Lazy<EpollLoop[]?> s_loops = new(StartLoops);
    private static int s_next;

    // struct epoll_event is packed (12 bytes) on x64, naturally aligned (16 bytes) on Arm64.
    private static readonly int s_eventSize = RuntimeInformation.ProcessArchitecture switch
    {
        Architecture.X64 => 12,
        Architecture.Arm64 => 16,
        _ => 0,
    };

    private readonly int _epoll;
    private readonly Lock _gate = new();
    private readonly Stack<int> _freeSlots = new();
    private LoopSocket?[] _sockets = new LoopSocket?[64];
    private int _usedSlots;

    private EpollLoop(int epoll) => _epoll = epoll;

    /// <summary>Whether this process uses its own event loops (Linux on x64 or Arm64).</summary>
    public static bool Available => s_loops.Value is not null;

    /// <summary>The loop for a new connection, round robin; null where there is none.</summary>
    public static EpollLoop? Next() =>
        s_loops.Value is { } loops ? loops[(int)((uint)Interlocked.Increment(ref s_next) % (uint)loops.Length)] : null;

    /// <summary>
    /// Half the cores this process may run on, at least one: the generator shares its machine with the app more often
    /// than not, and one loop drives tens of thousands of requests a second (wrk's default is one thread too).
    /// <c>PERFLAB_SOCKETS=runtime</c> keeps the runtime's socket engine instead: the comparison in docs/benchmarks.md,
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
                if (epoll < 0)
                {
                    return null;
                }
                loops[i] = new EpollLoop(epoll);
            }
        }
        catch (Exception ex) when (ex is DllNotFoundException or EntryPointNotFoundException)
        {
            return null;
        }
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
        var ev = new byte[s_eventSize];
        BinaryPrimitives.WriteUInt32LittleEndian(ev, LibC.EpollIn | LibC.EpollOut | LibC.EpollRdHup | LibC.EpollEt);
        BinaryPrimitives.WriteUInt64LittleEndian(ev.AsSpan(s_eventSize - 8), (ulong)slot);
        if (LibC.epoll_ctl(_epoll, LibC.EpollCtlAdd, fd, ev) < 0)
        {
            var errno = Marshal.GetLastPInvokeError();
            Release(slot);
            throw LibC.Error(errno);
        }
        return slot;
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
        var size = s_eventSize;
        var events = new byte[BatchSize * size];
        while (true)
        {
            var count = LibC.epoll_wait(_epoll, events, BatchSize, -1);
            if (count < 0)
            {
                if (Marshal.GetLastPInvokeError() == LibC.EIntr)
                {
                    continue;
                }
                return; // cannot happen with a valid epoll descriptor; the connections' watchdog then times them out
            }
            for (var i = 0; i < count; i++)
            {
                var at = events.AsSpan(i * size, size);
                var slot = BinaryPrimitives.ReadUInt64LittleEndian(at[(size - 8)..]);
                // Read per event: a connection's continuation may register another one (and grow the table) meanwhile.
                // A stale event for a slot reused since is a spurious readiness, which costs one read that finds nothing.
                var table = Volatile.Read(ref _sockets);
                if (slot < (ulong)table.Length && Volatile.Read(ref table[(int)slot]) is { } socket)
                {
                    socket.OnEvents(BinaryPrimitives.ReadUInt32LittleEndian(at));
                }
            }
        }
    }
}
