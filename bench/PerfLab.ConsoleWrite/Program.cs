// Time per console write, made as the SUT's locked-console logger makes it (Console.Out.WriteLine and Flush inside
// one process-wide lock, seed 004's anti-pattern), with the standard output a file (what the SUT had before its pseudo-terminal console)
// or a pseudo-terminal that perflab's PseudoTerminal reads, as `perflab run` gives the SUT with Console=terminal.
// Each measurement is a child process of its own (its stdout set by the shell, as perflab starts the SUT); it times
// every write inside the lock, i.e. how long the lock is held, and the whole run's wall time.
// Usage: PerfLab.ConsoleWrite [writes=100000] [threads=1,8] [repeats=3]
//        PerfLab.ConsoleWrite --writer <writes> <threads> <result-file>   (the child)
using System.Diagnostics;
using System.Globalization;
using PerfLab.SutProcesses;

if (args is ["--writer", var w, var t, var resultFile])
{
    return Writer.Run(int.Parse(w, CultureInfo.InvariantCulture), int.Parse(t, CultureInfo.InvariantCulture), resultFile);
}
var writes = args.Length > 0 ? int.Parse(args[0], CultureInfo.InvariantCulture) : 100_000;
var threadCounts = (args.Length > 1 ? args[1] : "1,8").Split(',').Select(s => int.Parse(s, CultureInfo.InvariantCulture)).ToArray();
var repeats = args.Length > 2 ? int.Parse(args[2], CultureInfo.InvariantCulture) : 3;

Console.WriteLine($"{writes} writes of a {Writer.Line.Length + 1}-byte line per run, median of {repeats} runs (targets interleaved)");
Console.WriteLine("| stdout | threads | writes/s | lock held, mean µs | median µs | p99 µs | lines perflab read |");
Console.WriteLine("|---|---|---|---|---|---|---|");
foreach (var threads in threadCounts)
{
    var runs = new Dictionary<string, List<Result>> { ["file"] = [], ["terminal"] = [] };
    for (var r = 0; r < repeats; r++)
    {
        foreach (var target in runs.Keys)
        {
            runs[target].Add(Measure(target, writes, threads));
        }
    }
    foreach (var (target, results) in runs)
    {
        double Median(Func<Result, double> f) => results.Select(f).Order().ElementAt(results.Count / 2);
        Console.WriteLine(string.Create(CultureInfo.InvariantCulture,
            $"| {target} | {threads} | {Median(x => x.WritesPerSecond):0} | {Median(x => x.MeanUs):0.00} | {Median(x => x.MedianUs):0.00} | {Median(x => x.P99Us):0.00} | {(target == "file" ? "-" : Median(x => x.LinesRead).ToString("0", CultureInfo.InvariantCulture))} |"));
    }
}
return 0;

static Result Measure(string target, int writes, int threads)
{
    var folder = Path.Combine(Path.GetTempPath(), "perflab-console-write");
    Directory.CreateDirectory(folder);
    var output = Path.Combine(folder, $"{target}-{Guid.NewGuid():N}.out");
    var resultFile = Path.Combine(folder, $"result-{Guid.NewGuid():N}.txt");
    using var terminal = target == "terminal" ? PseudoTerminal.Open(output) : null;
    var start = new ProcessStartInfo("/bin/sh") { UseShellExecute = false };
    foreach (var a in new[] { "-c", "exec \"$@\" </dev/null >\"$OUT\" 2>&1", "writer", Environment.ProcessPath!, typeof(Writer).Assembly.Location })
    {
        start.ArgumentList.Add(a);
    }
    if (Path.GetFileNameWithoutExtension(Environment.ProcessPath!) != "dotnet")
    {
        start.ArgumentList.RemoveAt(start.ArgumentList.Count - 1);   // an apphost runs its own assembly
    }
    foreach (var a in new[] { "--writer", writes.ToString(CultureInfo.InvariantCulture), threads.ToString(CultureInfo.InvariantCulture), resultFile })
    {
        start.ArgumentList.Add(a);
    }
    start.Environment["OUT"] = terminal?.SlavePath ?? output;
    using (var child = Process.Start(start)!)
    {
        child.WaitForExit();
        if (child.ExitCode != 0)
        {
            throw new InvalidOperationException($"the writer exited with {child.ExitCode}: {File.ReadAllText(output)}");
        }
    }
    terminal?.Dispose();
    var f = File.ReadAllText(resultFile).Split('\t').Select(s => double.Parse(s, CultureInfo.InvariantCulture)).ToArray();
    File.Delete(resultFile);
    File.Delete(output);
    return new Result(f[0], f[1], f[2], f[3], terminal?.LinesRead ?? 0);
}

internal sealed record Result(double WritesPerSecond, double MeanUs, double MedianUs, double P99Us, double LinesRead);

internal static class Writer
{
    /// <summary>A line as the locked-console logger writes it for a products page.</summary>
    public static readonly string Line =
        $"{new DateTime(2026, 11, 23, 13, 0, 0, DateTimeKind.Utc):O} Information PerfLab.Sut.Logging.RequestLog[0] Served products page 1 (size 100): 100 rows";

    public static int Run(int writes, int threads, string resultFile)
    {
        var console = Console.Out;
        var gate = new object();
        var perThread = writes / threads;
        var held = new long[threads * perThread];
        for (var i = 0; i < 2_000; i++)   // the JIT and the console's first-use set-up, outside the figures
        {
            console.WriteLine(Line);
        }
        var wall = Stopwatch.StartNew();
        Parallel.For(0, threads, new ParallelOptions { MaxDegreeOfParallelism = threads }, t =>
        {
            for (var i = 0; i < perThread; i++)
            {
                lock (gate)
                {
                    var started = Stopwatch.GetTimestamp();
                    console.WriteLine(Line);
                    console.Flush();
                    held[(t * perThread) + i] = Stopwatch.GetTimestamp() - started;
                }
            }
        });
        var seconds = wall.Elapsed.TotalSeconds;
        Array.Sort(held);
        var toUs = 1e6 / Stopwatch.Frequency;
        File.WriteAllText(resultFile, string.Create(CultureInfo.InvariantCulture,
            $"{held.Length / seconds}\t{held.Average() * toUs}\t{held[held.Length / 2] * toUs}\t{held[(int)(held.Length * 0.99)] * toUs}"));
        return 0;
    }
}
