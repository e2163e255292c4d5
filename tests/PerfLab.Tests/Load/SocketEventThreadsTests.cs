using System.Diagnostics;
using System.Globalization;
using PerfLab.Load;

namespace PerfLab.Tests.Load;

public sealed class SocketEventThreadsTests
{
    [Fact]
    public void BusiestShare_AThreadNamedLikeTheEventThreadBurnsAKnownCpuTime_ReadsThatTime()
    {
        // A stand-in with the runtime's event thread name that burns 0.6 s of its own CPU time (however long that takes
        // on a busy machine), then idles while the window stays open.
        using var go = new ManualResetEventSlim();
        using var done = new ManualResetEventSlim();
        using var exit = new ManualResetEventSlim();
        var spinner = new Thread(() =>
        {
            go.Wait();
            var start = OwnTicks();
            while (OwnTicks() - start < 60)
            {
                Thread.SpinWait(1000);
            }
            done.Set();
            exit.Wait(); // alive until read: an ended thread leaves /proc/self/task
        }) { Name = ".NET Sockets", IsBackground = true };
        spinner.Start();
        Thread.Sleep(100);

        var before = SocketEventThreads.CpuTicks();
        var wall = Stopwatch.StartNew();
        go.Set();
        done.Wait();
        Thread.Sleep(300);
        var seconds = wall.Elapsed.TotalSeconds;
        var share = SocketEventThreads.BusiestShare(before, SocketEventThreads.CpuTicks(), seconds);
        exit.Set();

        Assert.True(before.Count >= 1, "the named thread was not found in /proc/self/task");
        Assert.InRange(share * seconds, 0.58, 0.7); // 0.6 s burnt, read in 10 ms ticks
        Assert.InRange(share, 0.01, 0.67);          // and at least 0.3 s of the window idle
    }

    private static long OwnTicks()
    {
        var stat = File.ReadAllText("/proc/thread-self/stat");
        var fields = stat[(stat.LastIndexOf(')') + 2)..].Split(' ');
        return long.Parse(fields[11], CultureInfo.InvariantCulture) + long.Parse(fields[12], CultureInfo.InvariantCulture);
    }
}
