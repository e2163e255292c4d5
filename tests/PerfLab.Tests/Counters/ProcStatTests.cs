using PerfLab.Common;

namespace PerfLab.Tests.Counters;

public sealed class ProcStatTests
{
    [Fact]
    public void Read_NameWithSpacesAndParentheses_CountsFieldsFromAfterTheName()
    {
        // pid (comm) state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime ...
        var path = Path.GetTempFileName();
        try
        {
            File.WriteAllText(path, "4242 (.NET Tiered) (x)) S 1 4242 4242 0 -1 4194560 100 0 0 0 1234 567 0 0 20 0 9\n");
            var line = ProcStat.Read(path);
            Assert.Equal('S', line.State);
            Assert.Equal(1234 + 567, line.CpuTicks);
        }
        finally
        {
            File.Delete(path);
        }
    }

    [Fact]
    public void Read_NotAStatLine_ThrowsFormatException()
    {
        var path = Path.GetTempFileName();
        try
        {
            File.WriteAllText(path, "no parentheses here\n");
            Assert.Throws<FormatException>(() => ProcStat.Read(path));
        }
        finally
        {
            File.Delete(path);
        }
    }

    [Fact]
    public void Read_ThisThread_IsRunningAndHasUsedCpu()
    {
        // The reading thread's own line: it is running while it reads (the process's line is its main thread's). It
        // spins 200 ms first, so that it has used at least one 10 ms tick even on a busy machine.
        var spin = System.Diagnostics.Stopwatch.StartNew();
        while (spin.ElapsedMilliseconds < 200)
        {
        }
        var line = ProcStat.Read("/proc/thread-self/stat");
        Assert.Equal('R', line.State);
        Assert.True(line.CpuTicks > 0);
    }
}
