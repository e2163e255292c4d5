using System.Globalization;

namespace PerfLab.Common;

/// <summary>
/// One line of /proc/&lt;pid&gt;/stat or /proc/&lt;pid&gt;/task/&lt;tid&gt;/stat (Linux). The name in parentheses may hold
/// spaces and parentheses, so the fields are counted from after its last ')'.
/// </summary>
public static class ProcStat
{
    /// <summary>USER_HZ, the unit of the CPU times in /proc/*/stat on every Linux.</summary>
    public const double TicksPerSecond = 100;

    /// <exception cref="IOException">The process or thread is gone.</exception>
    /// <exception cref="FormatException">The line is not a stat line.</exception>
    public static ProcStatLine Read(string statFile)
    {
        var stat = File.ReadAllText(statFile);
        var afterName = stat.LastIndexOf(')');
        // Fields after the name: state is field 3, utime 14 and stime 15.
        var fields = afterName < 0 || afterName + 2 >= stat.Length ? [] : stat[(afterName + 2)..].Split(' ');
        if (fields.Length < 13 || fields[0].Length != 1)
        {
            throw new FormatException($"{statFile} is not a /proc stat line");
        }
        return new ProcStatLine(fields[0][0],
            long.Parse(fields[11], CultureInfo.InvariantCulture) + long.Parse(fields[12], CultureInfo.InvariantCulture));
    }
}

/// <summary>A process's or thread's state letter (R, S, Z ...) and its CPU time so far, user + system, in clock ticks.</summary>
public readonly record struct ProcStatLine(char State, long CpuTicks);
