using System.Net;
using System.Net.Sockets;
using PerfLab.Common;

namespace PerfLab.Tests.Common;

/// <summary>The kernel's CPU clocks and socket tables, checked against work and connections of known size.</summary>
public sealed class CpuClockTests
{
    [Fact]
    public void ProcessNanoseconds_ThreadThatSpunAndExited_ItsTimeStaysInTheProcessTotal()
    {
        var before = CpuClock.ProcessNanoseconds(Environment.ProcessId)!.Value;
        var (tid, own) = (0, 0L);
        var thread = new Thread(() =>
        {
            tid = Gettid();
            Spin(TimeSpan.FromMilliseconds(200));
            own = CpuClock.CurrentThreadNanoseconds();
        });
        thread.Start();
        thread.Join();
        // Join returns when the managed thread is done; the kernel task can linger a moment longer in /proc.
        for (var i = 0; i < 200 && Directory.Exists($"/proc/self/task/{tid}"); i++)
        {
            Thread.Sleep(10);
        }

        // The thread is gone, so no /proc/self/task entry holds its time any more; the process clock still does (other
        // tests' threads run in this process too, so the total can only be larger).
        var spent = CpuClock.ProcessNanoseconds(Environment.ProcessId)!.Value - before;
        Assert.False(Directory.Exists($"/proc/self/task/{tid}"), "the thread has not exited 2 s after Join");
        Assert.InRange(own / 1e6, 200, 1000);
        Assert.True(spent >= own, $"the process clock advanced {spent / 1e6:0.0} ms, less than the dead thread's {own / 1e6:0.0} ms");
        Assert.Null(CpuClock.ProcessNanoseconds(int.MaxValue - 1));
    }

    [System.Runtime.InteropServices.DllImport("libc", EntryPoint = "gettid")]
    private static extern int Gettid();

    [Fact]
    public async Task RunAsync_FiveRepetitions_CpuTimeNeverExceedsWallTime()
    {
        var calibration = await CpuCalibration.RunAsync(repetitions: 5, iterations: 200_000);

        Assert.Equal(5, calibration.CpuMs.Count);
        Assert.All(calibration.CpuMs.Zip(calibration.WallMs), p => Assert.InRange(p.First, 0.01, p.Second + 0.01));
        Assert.InRange(calibration.CoreSharePercent, 1, 100);
    }

    [Fact]
    public void CoreSharePercent_HalfTheWallTimeWaiting_SixtySevenPercentAndSpeedSteady()
    {
        var calibration = new CpuCalibration([100, 200, 100, 200], [100, 100, 100, 100]);

        Assert.Equal(66.67, calibration.CoreSharePercent, 2);
        Assert.Equal(0, calibration.SpeedCvPercent, 6);
    }

    [Fact]
    public void Parse_ProcNetTcpLines_PortsAndInodes()
    {
        const string table = """
              sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
               0: 0100007F:1538 00000000:0000 0A 00000000:00000000 00:00000000 00000000   104        0 31337 1 0000000000000000 100 0 0 10 0
               1: 0100007F:D431 0100007F:1538 01 00000000:00000000 00:00000000 00000000     0        0 42424 1 0000000000000000 20 4 30 10 -1
            """;

        Assert.Equal([new TcpSocket(5432, 0, 31337), new TcpSocket(54321, 5432, 42424)], TcpSockets.Parse(table).ToList());
    }

    [Fact]
    public async Task InodesOf_OpenLoopbackConnection_ItsSocketIsThisProcesssWithItsPorts()
    {
        using var listener = new TcpListener(IPAddress.Loopback, 0);
        listener.Start();
        using var client = new TcpClient();
        await client.ConnectAsync(IPAddress.Loopback, ((IPEndPoint)listener.LocalEndpoint).Port);
        var local = ((IPEndPoint)client.Client.LocalEndPoint!).Port;
        var remote = ((IPEndPoint)listener.LocalEndpoint).Port;

        // The table is the whole network namespace's: a socket of another test (one in TIME_WAIT, say) may hold the
        // same local port towards another peer, so the connection is found by both its ports.
        var mine = TcpSockets.InodesOf(Environment.ProcessId);
        var socket = Assert.Single(TcpSockets.Table(Environment.ProcessId), s => s.LocalPort == local && s.RemotePort == remote);
        Assert.Contains(socket.Inode, mine);
    }

    private static void Spin(TimeSpan cpu)
    {
        var until = CpuClock.CurrentThreadNanoseconds() + (long)(cpu.TotalMilliseconds * 1e6);
        while (CpuClock.CurrentThreadNanoseconds() < until)
        {
            Thread.SpinWait(20);
        }
    }
}
