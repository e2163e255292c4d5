using System.CommandLine;

namespace PerfLab.Cli;

// Placeholder until the counters verb lands.
public static class CountersCommand
{
    public static Command Create()
    {
        var command = new Command("counters", "(not built yet)");
        command.SetAction(_ => { Console.Error.WriteLine("perflab counters is not built yet."); return (int)ExitCode.Failed; });
        return command;
    }
}
