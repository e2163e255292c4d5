using System.CommandLine;

namespace PerfLab.Cli;

// Placeholder until the list verb lands.
public static class ListCommand
{
    public static Command Create()
    {
        var command = new Command("list", "(not built yet)");
        command.SetAction(_ => { Console.Error.WriteLine("perflab list is not built yet."); return (int)ExitCode.Failed; });
        return command;
    }
}
