using System.CommandLine;

namespace PerfLab.Cli;

// Placeholder until the db verb lands.
public static class DbCommand
{
    public static Command Create()
    {
        var command = new Command("db", "(not built yet)");
        command.SetAction(_ => { Console.Error.WriteLine("perflab db is not built yet."); return (int)ExitCode.Failed; });
        return command;
    }
}
