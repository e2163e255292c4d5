using System.Runtime.InteropServices;
using System.Text;
using PerfLab.Common;

namespace PerfLab.SutProcesses;

/// <summary>
/// A pseudo-terminal that perflab opens and reads as a terminal emulator would, so that a SUT started with the setting
/// <c>Console=terminal</c> has a console for its standard output and error (seed 004's <c>Console.WriteLine</c> inside a
/// lock writes to a terminal, not to a file). The SUT's shell redirects its output to the slave side; a thread of
/// perflab drains the master side without pause, so a write blocks only while the kernel's tty buffer is full, never
/// for good, and copies the text a terminal would show into the SUT's log file (without the carriage returns the
/// terminal's ONLCR adds and without escape sequences), counting the lines. Nothing is drawn: a real emulator spends
/// more per line (see docs/benchmarks/console.md).
/// </summary>
public sealed class PseudoTerminal : IDisposable
{
    /// <summary>The SUT setting that asks for a terminal, and its value.</summary>
    public const string SettingKey = "Console";
    public const string TerminalValue = "terminal";

    private const int ReadWrite = 0x2, NoControllingTty = 0x100, CloseOnExec = 0x80000;
    private const short PollIn = 0x1;
    private const byte Esc = 0x1B, Bell = 0x07;
    private const int Interrupted = 4, TryAgain = 11;
    private static readonly TimeSpan PollInterval = TimeSpan.FromMilliseconds(100);
    private static readonly TimeSpan DrainLimit = TimeSpan.FromSeconds(2);

    private readonly int _master;
    // perflab holds the slave open too: with no slave open the master reads EIO, as between the shell's exit and the
    // SUT's first write, or after the SUT exits with output still unread.
    private readonly int _slave;
    private readonly FileStream _transcript;
    private readonly Thread _reader;
    private volatile bool _closing;
    private long _lines;
    private long _bytes;
    private int _disposed;
    private EscapeState _escape;   // the reader thread's only

    private PseudoTerminal(int master, int slave, string slavePath, string transcriptFile)
    {
        _master = master;
        _slave = slave;
        SlavePath = slavePath;
        TranscriptFile = transcriptFile;
        _transcript = new FileStream(transcriptFile, FileMode.Create, FileAccess.Write, FileShare.ReadWrite | FileShare.Delete,
            bufferSize: 0);
        _reader = new Thread(Drain) { IsBackground = true, Name = "perflab pty reader" };
        _reader.Start();
    }

    /// <summary>The terminal's slave device (/dev/pts/N): the SUT's standard output and error.</summary>
    public string SlavePath { get; }

    /// <summary>Where what was read goes, line by line as it arrives.</summary>
    public string TranscriptFile { get; }

    /// <summary>Lines read from the terminal so far (every newline the SUT wrote, its readiness line included).</summary>
    public long LinesRead => Interlocked.Read(ref _lines);

    /// <summary>Bytes read from the terminal so far (carriage returns included).</summary>
    public long BytesRead => Interlocked.Read(ref _bytes);

    /// <summary>Whether a launch's settings ask for a terminal (<c>Console=terminal</c>, or <c>Sut:Console</c>).</summary>
    public static bool IsAskedFor(IReadOnlyDictionary<string, string> settings) =>
        settings.Any(s => (s.Key.Equals(SettingKey, StringComparison.OrdinalIgnoreCase)
                || s.Key.Equals("Sut:" + SettingKey, StringComparison.OrdinalIgnoreCase))
            && s.Value.Trim().Equals(TerminalValue, StringComparison.OrdinalIgnoreCase));

    /// <summary>A terminal for the launch when its settings ask for one, else null.</summary>
    /// <param name="detached">A detached SUT outlives perflab, and with it the reader: refused with a usage error.</param>
    public static PseudoTerminal? OpenFor(SutLaunch launch, bool detached, string transcriptFile)
    {
        if (!IsAskedFor(launch.Settings))
        {
            return null;
        }
        if (detached)
        {
            throw new PerfLabException(
                $"{SettingKey}={TerminalValue} gives the SUT a terminal that perflab reads, so the SUT cannot outlive perflab: " +
                "start it with --foreground, or leave the setting out.", ExitCode.Usage);
        }
        return Open(transcriptFile);
    }

    /// <summary>Opens a new pseudo-terminal (posix_openpt, grantpt, unlockpt, ptsname_r) and starts reading it.</summary>
    public static PseudoTerminal Open(string transcriptFile)
    {
        if (!OperatingSystem.IsLinux())
        {
            throw new PerfLabException($"{SettingKey}={TerminalValue} needs a Linux pseudo-terminal (/dev/ptmx).", ExitCode.Environment);
        }
        var master = posix_openpt(ReadWrite | NoControllingTty | CloseOnExec);
        if (master < 0)
        {
            throw Failure("posix_openpt", Marshal.GetLastPInvokeError());
        }
        var slave = -1;
        try
        {
            if (grantpt(master) != 0)
            {
                throw Failure("grantpt", Marshal.GetLastPInvokeError());
            }
            if (unlockpt(master) != 0)
            {
                throw Failure("unlockpt", Marshal.GetLastPInvokeError());
            }
            var name = new byte[256];
            var error = ptsname_r(master, name, name.Length);
            if (error != 0)
            {
                throw Failure("ptsname_r", error);
            }
            var path = Encoding.ASCII.GetString(name, 0, Array.IndexOf(name, (byte)0));
            slave = open(path, ReadWrite | NoControllingTty | CloseOnExec);
            if (slave < 0)
            {
                throw Failure($"open {path}", Marshal.GetLastPInvokeError());
            }
            return new PseudoTerminal(master, slave, path, transcriptFile);
        }
        catch
        {
            if (slave >= 0)
            {
                close(slave);
            }
            close(master);
            throw;
        }
    }

    private static PerfLabException Failure(string call, int errno) =>
        new($"cannot open a pseudo-terminal for the SUT's console: {call} failed ({Marshal.GetPInvokeErrorMessage(errno)}).",
            ExitCode.Environment);

    // The emulator's loop: wait for output (at most PollInterval, so that closing is noticed), read what is there,
    // keep it. On closing, what the SUT left in the buffer is still read, for at most DrainLimit.
    private void Drain()
    {
        var input = new byte[64 * 1024];
        var output = new byte[input.Length];
        var fds = new[] { new PollFd { Fd = _master, Events = PollIn } };
        var closingSince = 0L;
        while (true)
        {
            if (_closing && closingSince == 0)
            {
                closingSince = Environment.TickCount64;
            }
            if (closingSince != 0 && Environment.TickCount64 - closingSince > DrainLimit.TotalMilliseconds)
            {
                return;
            }
            var ready = poll(fds, 1, closingSince != 0 ? 0 : (int)PollInterval.TotalMilliseconds);
            if (ready < 0 && Marshal.GetLastPInvokeError() == Interrupted)
            {
                continue;
            }
            if (ready <= 0)
            {
                if (ready < 0 || closingSince != 0)
                {
                    return;
                }
                continue;
            }
            var count = read(_master, input, input.Length);
            if (count < 0 && Marshal.GetLastPInvokeError() is Interrupted or TryAgain)
            {
                continue;
            }
            if (count <= 0)
            {
                return;   // EIO: no slave side open any more
            }
            Keep(input, (int)count, output);
        }
    }

    // What a terminal would show: the text, without the carriage returns ONLCR adds and without escape sequences
    // (colours of the console logger, the keypad mode .NET sets on a terminal), which a terminal interprets.
    private void Keep(byte[] input, int count, byte[] output)
    {
        var kept = 0;
        var lines = 0;
        for (var i = 0; i < count; i++)
        {
            var b = input[i];
            switch (_escape)
            {
                case EscapeState.Text when b == Esc:
                    _escape = EscapeState.Escape;
                    continue;
                case EscapeState.Text when b == (byte)'\r':
                    continue;
                case EscapeState.Text:
                    lines += b == (byte)'\n' ? 1 : 0;
                    output[kept++] = b;
                    continue;
                case EscapeState.Escape:
                    _escape = b switch
                    {
                        (byte)'[' => EscapeState.ControlSequence,
                        (byte)']' => EscapeState.OperatingSystemCommand,
                        (byte)'(' or (byte)')' => EscapeState.OneMore,
                        _ => EscapeState.Text,
                    };
                    continue;
                case EscapeState.ControlSequence when b is >= 0x40 and <= 0x7E:
                case EscapeState.OperatingSystemCommand when b == Bell:
                case EscapeState.OneMore:
                    _escape = EscapeState.Text;
                    continue;
                default:
                    continue;
            }
        }
        _transcript.Write(output, 0, kept);
        Interlocked.Add(ref _lines, lines);
        Interlocked.Add(ref _bytes, count);
    }

    /// <summary>Reads what the SUT left in the terminal, then closes it. Call after the SUT has exited.</summary>
    public void Dispose()
    {
        if (Interlocked.Exchange(ref _disposed, 1) != 0)
        {
            return;
        }
        _closing = true;
        _reader.Join();
        close(_slave);
        close(_master);
        _transcript.Dispose();
    }

    private enum EscapeState { Text, Escape, ControlSequence, OperatingSystemCommand, OneMore }

    [StructLayout(LayoutKind.Sequential)]
    private struct PollFd
    {
        public int Fd;
        public short Events;
        public short ReturnedEvents;
    }

#pragma warning disable SYSLIB1054 // DllImport keeps the project free of unsafe code; these marshal trivially.
    [DllImport("libc", SetLastError = true)]
    private static extern int posix_openpt(int flags);

    [DllImport("libc", SetLastError = true)]
    private static extern int grantpt(int fd);

    [DllImport("libc", SetLastError = true)]
    private static extern int unlockpt(int fd);

    [DllImport("libc")]
    private static extern int ptsname_r(int fd, byte[] buffer, nint length);

    [DllImport("libc", SetLastError = true)]
    private static extern int open([MarshalAs(UnmanagedType.LPUTF8Str)] string path, int flags);

    [DllImport("libc", SetLastError = true)]
    private static extern int poll([In, Out] PollFd[] fds, nuint count, int timeoutMs);

    [DllImport("libc", SetLastError = true)]
    private static extern nint read(int fd, [Out] byte[] buffer, nint count);

    [DllImport("libc")]
    private static extern int close(int fd);
#pragma warning restore SYSLIB1054
}
