using System.CommandLine;

namespace PerfLab.Cli;

// Placeholder until the run verb lands.
public static class RunCommand
{
    public static Command Create()
    {
        var command = new Command("run", "(not built yet)");
        command.SetAction(_ => { Console.Error.WriteLine("perflab run is not built yet."); return (int)ExitCode.Failed; });
        return command;
    }
}
