using PerfLab.Sut.Data;
using PerfLab.Sut.Delays;
using PerfLab.Sut.Hosting;
using PerfLab.Sut.Info;
using PerfLab.Sut.Logging;
using PerfLab.Sut.Platform;
using PerfLab.Sut.Serialization;

// Content root is the app's own folder, so appsettings.json applies whatever folder perflab starts it from.
var builder = WebApplication.CreateBuilder(new WebApplicationOptions { Args = args, ContentRootPath = AppContext.BaseDirectory });

EffectiveVariants variants;
try
{
    variants = builder.AddVariants();
}
catch (InvalidVariantException ex)
{
    Console.Error.WriteLine($"perflab-sut: {ex.Message}");
    return 2;
}

builder.AddSutLogging(variants);
builder.AddAdventureWorks(variants);
builder.AddSerialization(variants);
builder.Services.AddProblemDetails();
builder.Services.AddExceptionHandler<DatabaseUnavailableHandler>();

var app = builder.Build();
app.UseExceptionHandler();
app.UseStatusCodePages();

app.MapControllers();   // Orders/, Products/, Platform/ (MVC, so the Serializer variant applies)
app.MapDelays();        // seeds 001, 003, 004
app.MapInfo();
app.MapPlatform();
app.AnnounceReadiness();

app.Run();
return 0;

/// <summary>The entry point, visible to the tests that host the app in-process.</summary>
public partial class Program;
