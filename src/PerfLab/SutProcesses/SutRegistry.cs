using System.Text.Json;
using PerfLab.Common;

namespace PerfLab.SutProcesses;

// The SUT `perflab sut start` left running, as the registry records it.
internal sealed record RunningSut(int Pid, string Url, string LogFile, string Framework, Dictionary<string, string> Settings);

// The one SUT `perflab sut start` left running, recorded in a file (running.json in perflab's cache) so that a later
// `sut status` or `sut stop`, another perflab process, finds it.
internal sealed class SutRegistry(string stateFile)
{
    public static SutRegistry Default => new(Path.Combine(PerfLabPaths.CacheRoot, "sut", "running.json"));

    public string StateFile { get; } = stateFile;

    // The recorded SUT, or null. A record whose process has ended, or whose pid now belongs to another program (pids
    // are reused), is stale: it is deleted, so `sut stop` never signals a stranger.
    public RunningSut? Current()
    {
        if (Read() is { } state && ProcessTree.IsAlive(state.Pid) && IsSutProcess(state.Pid))
        {
            return state;
        }
        Remove();
        return null;
    }

    public void Record(RunningSut state)
    {
        Directory.CreateDirectory(Path.GetDirectoryName(StateFile)!);
        File.WriteAllText(StateFile, JsonSerializer.Serialize(state));
    }

    public void Remove()
    {
        if (File.Exists(StateFile))
        {
            File.Delete(StateFile);
        }
    }

    private static bool IsSutProcess(int pid)
    {
        try
        {
            return File.ReadAllText($"/proc/{pid}/cmdline").Contains("PerfLab.Sut", StringComparison.Ordinal);
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
        {
            return false;
        }
    }

    private RunningSut? Read()
    {
        try
        {
            return File.Exists(StateFile) ? JsonSerializer.Deserialize<RunningSut>(File.ReadAllText(StateFile)) : null;
        }
        catch (JsonException)
        {
            return null;
        }
    }
}
