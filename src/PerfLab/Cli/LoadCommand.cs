using System.CommandLine;

namespace PerfLab.Cli;

// Placeholder until the load verb lands.
public static class LoadCommand
{
    public static Command Create()
    {
        var command = new Command("load", "(not built yet)");
        command.SetAction(_ => { Console.Error.WriteLine("perflab load is not built yet."); return (int)ExitCode.Failed; });
        return command;
    }
}
