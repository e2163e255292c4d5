using System.Net.Sockets;
using System.Runtime.InteropServices;

namespace PerfLab.Load.Sockets;

/// <summary>
/// The few Linux calls the generator's event loop makes itself: epoll, send and recv on non-blocking sockets, an
/// eventfd that wakes the loop when another thread asks it for an earlier timer, and a timerfd for its far timers.
/// </summary>
internal static class LibC
{
    public const int EAgain = 11;
    public const int EIntr = 4;
    public const int MsgNoSignal = 0x4000;
    public const int EpollCloExec = 0x80000;
    public const int EpollCtlAdd = 1;
    public const int EpollCtlDel = 2;
    public const uint EpollIn = 0x001;
    public const uint EpollOut = 0x004;
    public const uint EpollErr = 0x008;
    public const uint EpollHup = 0x010;
    public const uint EpollRdHup = 0x2000;
    public const uint EpollEt = 1u << 31;
    public const int EfdNonBlock = 0x800;
    public const int EfdCloExec = 0x80000;
    public const int ClockMonotonic = 1;
    public const int TfdNonBlock = 0x800;
    public const int TfdCloExec = 0x80000;

    /// <summary>A failed call's errno as the runtime's own <see cref="SocketException"/> would name it.</summary>
    public static SocketException Error(int errno) => new((int)(errno switch
    {
        111 => SocketError.ConnectionRefused,
        104 => SocketError.ConnectionReset,
        103 => SocketError.ConnectionAborted,
        32 => SocketError.Shutdown, // EPIPE
        110 => SocketError.TimedOut,
        113 => SocketError.HostUnreachable,
        101 => SocketError.NetworkUnreachable,
        99 => SocketError.AddressNotAvailable,
        107 => SocketError.NotConnected,
        9 => SocketError.OperationAborted, // EBADF: the descriptor was closed
        _ => SocketError.SocketError,
    }));

// DllImport keeps the project free of unsafe code; these marshal trivially (byte arrays and byrefs are pinned).
#pragma warning disable SYSLIB1054
    [DllImport("libc", SetLastError = true)]
    public static extern int epoll_create1(int flags);

    /// <summary><paramref name="epollEvent"/>: a struct epoll_event laid out as <see cref="EpollLoop"/> describes.</summary>
    [DllImport("libc", SetLastError = true)]
    public static extern int epoll_ctl(int epfd, int op, int fd, byte[] epollEvent);

    /// <summary><paramref name="events"/>: room for <paramref name="maxEvents"/> events. Errno: see send's note.</summary>
    [DllImport("libc")]
    public static extern int epoll_wait(int epfd, ref byte events, int maxEvents, int timeoutMs);

    /// <summary>
    /// epoll_wait with a nanosecond timeout (Linux 5.11, glibc 2.35): a paced send wakes at its time, not at the next
    /// whole millisecond. <paramref name="timeout"/>: struct timespec, seconds then nanoseconds. Errno: see send's note.
    /// </summary>
    [DllImport("libc")]
    public static extern int epoll_pwait2(int epfd, ref byte events, int maxEvents, ref long timeout, nint sigmask);

    [DllImport("libc", SetLastError = true)]
    public static extern int eventfd(uint initval, int flags);

    [DllImport("libc", SetLastError = true)]
    public static extern int timerfd_create(int clockId, int flags);

    /// <summary><paramref name="newValue"/>: struct itimerspec, the interval (seconds, nanoseconds) then the first expiry.</summary>
    [DllImport("libc", SetLastError = true)]
    public static extern int timerfd_settime(int fd, int flags, long[] newValue, nint oldValue);

    [DllImport("libc", SetLastError = true)]
    public static extern nint read(int fd, ref long value, nint length);

    [DllImport("libc", SetLastError = true)]
    public static extern nint write(int fd, ref long value, nint length);

    // The calls of every request and every wait, without SetLastError: their stubs (which pin the byref) no longer clear
    // errno before the call and copy it after. A caller reads errno itself, after a failure only, with
    // Marshal.GetLastSystemError as the next thing it does (the runtime keeps errno across the call's return to managed
    // code, as the LibraryImport generator's code relies on).
    [DllImport("libc")]
    public static extern nint send(int fd, ref byte buffer, nint length, int flags);

    [DllImport("libc")]
    public static extern nint recv(int fd, ref byte buffer, nint length, int flags);
#pragma warning restore SYSLIB1054
}
