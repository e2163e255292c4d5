using System.CommandLine;

namespace PerfLab.Cli;

// Placeholder until the micro verb lands.
public static class MicroCommand
{
    public static Command Create()
    {
        var command = new Command("micro", "(not built yet)");
        command.SetAction(_ => { Console.Error.WriteLine("perflab micro is not built yet."); return (int)ExitCode.Failed; });
        return command;
    }
}
