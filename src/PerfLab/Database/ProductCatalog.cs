
namespace PerfLab.Database;

// The product families AdventureWorks sells, from which the 504 Production.Product rows are expanded
// (family x color x size), in the real catalogue's naming: "HL Road Frame - Black, 58" / "FR-R92B-58",
// "Road-150 Red, 62" / "BK-R93R-62", "Sport-100 Helmet, Red" / "HL-U509-R".
internal static class ProductCatalog
{
    public const int ProductCount = 504;

    public enum NameStyle
    {
        /// <summary>"HL Road Frame - Black, 58" / "FR-R92B-58".</summary>
        Frame,
        /// <summary>"Road-150 Red, 62" / "BK-R93R-62".</summary>
        Bike,
        /// <summary>"Long-Sleeve Logo Jersey, M" / "LJ-0192-M".</summary>
        Sized,
        /// <summary>"Sport-100 Helmet, Red" / "HL-U509-R".</summary>
        Colored,
        /// <summary>"HL Crankset" / "CS-9183".</summary>
        Plain,
    }

    public sealed record Color(string Name, char Code);

    public sealed record Family(
        string Name, string Number, NameStyle Style, Color[] Colors, string[] Sizes, string? Line, string? Class,
        string? ProductStyle, int Subcategory, decimal ListPrice, int Days, decimal? Weight);

    private static readonly Color Black = new("Black", 'B');
    private static readonly Color Red = new("Red", 'R');
    private static readonly Color Silver = new("Silver", 'S');
    private static readonly Color Yellow = new("Yellow", 'Y');
    private static readonly Color Blue = new("Blue", 'U');
    private static readonly Color Multi = new("Multi", 'M');
    private static readonly Color White = new("White", 'W');

    private static Family Frame(string name, string number, Color[] colors, string sizes, string line, string cls,
        string style, int subcategory, decimal price) =>
        new(name, number, NameStyle.Frame, colors, sizes.Split(' '), line, cls, style, subcategory, price, 1, 2.9m);

    private static Family Bike(string name, string number, Color[] colors, string sizes, string line, string cls,
        string style, int subcategory, decimal price, decimal weight) =>
        new(name, number, NameStyle.Bike, colors, sizes.Split(' '), line, cls, style, subcategory, price, 4, weight);

    private static Family Clothing(string name, string number, Color color, string sizes, string line, string? style,
        int subcategory, decimal price) =>
        new(name, number, NameStyle.Sized, [color], sizes.Split(' '), line, null, style, subcategory, price, 0, null);

    private static Family Part(string name, string number, decimal price, int subcategory, string? line = null,
        Color? color = null, string? cls = null) =>
        new(name, number, NameStyle.Plain, color is null ? [] : [color], [], line, cls, null, subcategory, price,
            1, null);

    /// <summary>Finished goods, the products that appear on orders.</summary>
    public static readonly Family[] FinishedGoods =
    [
        Frame("HL Road Frame", "FR-R92", [Black, Red], "44 48 52 56 58 62", "R", "H", "U", 14, 1431.50m),
        Frame("ML Road Frame", "FR-R72", [Red], "44 48 52 58 60", "R", "M", "U", 14, 594.83m),
        Frame("ML Road Frame-W", "FR-R72", [Yellow], "38 40 42 44 48", "R", "M", "W", 14, 594.83m),
        Frame("LL Road Frame", "FR-R38", [Black, Red], "44 48 52 58 60 62", "R", "L", "U", 14, 337.22m),
        Frame("HL Mountain Frame", "FR-M94", [Silver, Black], "38 42 44 46 48", "M", "H", "U", 12, 1364.50m),
        Frame("ML Mountain Frame", "FR-M63", [Black], "38 40 42 44 48", "M", "M", "U", 12, 348.76m),
        Frame("ML Mountain Frame-W", "FR-M63", [Silver], "38 40 42 46", "M", "M", "W", 12, 364.09m),
        Frame("LL Mountain Frame", "FR-M21", [Silver, Black], "40 42 44 48 52", "M", "L", "U", 12, 264.05m),
        Frame("HL Touring Frame", "FR-T98", [Yellow, Blue], "46 50 54 60", "T", "H", "U", 16, 1003.91m),
        Frame("LL Touring Frame", "FR-T67", [Yellow, Blue], "44 50 54 58 62", "T", "L", "U", 16, 333.42m),
        Bike("Road-150", "BK-R93", [Red], "44 48 52 56 62", "R", "H", "U", 2, 3578.27m, 14.68m),
        Bike("Road-250", "BK-R89", [Red, Black], "44 48 52 58", "R", "H", "U", 2, 2443.35m, 14.90m),
        Bike("Road-350-W", "BK-R79", [Yellow], "40 42 44 48", "R", "M", "W", 2, 1700.99m, 15.35m),
        Bike("Road-450", "BK-R68", [Red], "44 48 52 58 60", "R", "M", "U", 2, 1457.99m, 17.79m),
        Bike("Road-550-W", "BK-R64", [Yellow], "38 40 42 44 48", "R", "M", "W", 2, 1120.49m, 18.77m),
        Bike("Road-650", "BK-R50", [Red, Black], "44 48 52 58 60 62", "R", "L", "U", 2, 782.99m, 19.77m),
        Bike("Road-750", "BK-R19", [Black], "44 48 52 58", "R", "L", "U", 2, 539.99m, 20.77m),
        Bike("Mountain-100", "BK-M82", [Silver, Black], "38 42 44 48", "M", "H", "U", 1, 3399.99m, 20.35m),
        Bike("Mountain-200", "BK-M68", [Silver, Black], "38 42 46", "M", "H", "U", 1, 2319.99m, 23.35m),
        Bike("Mountain-300", "BK-M47", [Black], "38 40 44 48", "M", "M", "U", 1, 1079.99m, 25.35m),
        Bike("Mountain-400-W", "BK-M38", [Silver], "38 40 42 46", "M", "M", "W", 1, 769.49m, 26.35m),
        Bike("Mountain-500", "BK-M18", [Silver, Black], "40 42 44 48 52", "M", "L", "U", 1, 539.99m, 27.35m),
        Bike("Touring-1000", "BK-T79", [Yellow, Blue], "46 50 54 60", "T", "H", "U", 3, 2384.07m, 25.13m),
        Bike("Touring-2000", "BK-T44", [Blue], "46 50 54 60", "T", "M", "U", 3, 1214.85m, 27.90m),
        Bike("Touring-3000", "BK-T18", [Yellow, Blue], "44 50 54 58 62", "T", "L", "U", 3, 742.35m, 29.90m),
        Clothing("Long-Sleeve Logo Jersey", "LJ-0192", Multi, "S M L XL", "S", "U", 21, 49.99m),
        Clothing("Short-Sleeve Classic Jersey", "SJ-0194", Yellow, "S M L XL", "S", "U", 21, 53.99m),
        Clothing("Women's Mountain Shorts", "SH-W890", Black, "S M L", "M", "W", 18, 69.99m),
        Clothing("Men's Sports Shorts", "SH-M897", Black, "S M L XL", "S", "M", 18, 59.99m),
        Clothing("Men's Bib-Shorts", "SB-M891", Multi, "S M L", "S", "M", 18, 89.99m),
        Clothing("Women's Tights", "TG-W091", Black, "S M L", "S", "W", 24, 74.99m),
        Clothing("Half-Finger Gloves", "GL-H102", Black, "S M L", "S", "U", 20, 24.49m),
        Clothing("Full-Finger Gloves", "GL-F110", Black, "S M L", "M", "U", 20, 37.99m),
        Clothing("Classic Vest", "VE-C304", Blue, "S M L", "S", "U", 25, 63.50m),
        Clothing("Mountain Bike Socks", "SO-B909", White, "M L", "M", "U", 23, 9.50m),
        Clothing("Racing Socks", "SO-R809", White, "M L", "R", "U", 23, 8.99m),
        new("Sport-100 Helmet", "HL-U509", NameStyle.Colored, [Red, Black, Blue], [], "S", null, null, 31, 34.99m, 0, null),
        new("AWC Logo Cap", "CA-1098", NameStyle.Plain, [Multi], [], "S", null, "U", 19, 8.99m, 0, null),
        Part("Water Bottle - 30 oz.", "WB-H098", 4.99m, 28, "S"),
        Part("Mountain Bottle Cage", "BC-M005", 9.99m, 28, "M"),
        Part("Road Bottle Cage", "BC-R205", 8.99m, 28, "R"),
        Part("Patch Kit/8 Patches", "PK-7098", 2.29m, 37, "S"),
        Part("Bike Wash - Dissolver", "CL-9009", 7.95m, 29, "S"),
        Part("Hydration Pack - 70 oz.", "HY-1023-70", 54.99m, 32, "S", Silver),
        Part("Cable Lock", "LO-C100", 25.00m, 34, "S"),
        Part("Minipump", "PU-0452", 19.99m, 36, "S"),
        Part("Mountain Pump", "PU-M044", 24.99m, 36, "M"),
        Part("Headlights - Dual-Beam", "LT-H902", 34.99m, 33, "S"),
        Part("Headlights - Weatherproof", "LT-H903", 44.99m, 33, "S"),
        Part("Taillights - Battery-Powered", "LT-T990", 13.99m, 33, "S"),
        Part("Hitch Rack - 4-Bike", "RA-H123", 120.00m, 26, "S"),
        Part("All-Purpose Bike Stand", "ST-1401", 159.00m, 27, "M"),
        Part("Touring-Panniers, Large", "PA-T100", 125.00m, 35, "T", Multi),
        Part("Fender Set - Mountain", "FE-6654", 21.98m, 30, "M"),
        Part("HL Mountain Tire", "TI-M823", 35.00m, 37, "M", cls: "H"),
        Part("ML Mountain Tire", "TI-M602", 29.99m, 37, "M", cls: "M"),
        Part("LL Mountain Tire", "TI-M267", 24.99m, 37, "M", cls: "L"),
        Part("HL Road Tire", "TI-R982", 32.60m, 37, "R", cls: "H"),
        Part("ML Road Tire", "TI-R628", 24.99m, 37, "R", cls: "M"),
        Part("LL Road Tire", "TI-R092", 21.49m, 37, "R", cls: "L"),
        Part("Touring Tire", "TI-T723", 28.99m, 37, "T"),
        Part("Mountain Tire Tube", "TT-M928", 4.99m, 37, "M"),
        Part("Road Tire Tube", "TT-R982", 3.99m, 37, "R"),
        Part("Touring Tire Tube", "TT-T092", 4.99m, 37, "T"),
        Part("HL Road Handlebars", "HB-R956", 120.27m, 4, "R", cls: "H"),
        Part("ML Road Handlebars", "HB-R720", 61.92m, 4, "R", cls: "M"),
        Part("LL Road Handlebars", "HB-R504", 44.54m, 4, "R", cls: "L"),
        Part("HL Mountain Handlebars", "HB-M918", 120.27m, 4, "M", cls: "H"),
        Part("ML Mountain Handlebars", "HB-M763", 61.92m, 4, "M", cls: "M"),
        Part("LL Mountain Handlebars", "HB-M243", 44.54m, 4, "M", cls: "L"),
        Part("HL Touring Handlebars", "HB-T928", 91.57m, 4, "T", cls: "H"),
        Part("LL Touring Handlebars", "HB-T721", 46.09m, 4, "T", cls: "L"),
        Part("HL Road Front Wheel", "FW-R820", 330.06m, 17, "R", Black, "H"),
        Part("ML Road Front Wheel", "FW-R762", 248.38m, 17, "R", Black, "M"),
        Part("LL Road Front Wheel", "FW-R623", 85.57m, 17, "R", Black, "L"),
        Part("HL Mountain Front Wheel", "FW-M928", 300.22m, 17, "M", Black, "H"),
        Part("ML Mountain Front Wheel", "FW-M762", 209.03m, 17, "M", Black, "M"),
        Part("LL Mountain Front Wheel", "FW-M423", 60.75m, 17, "M", Black, "L"),
        Part("Touring Front Wheel", "FW-T905", 218.01m, 17, "T", Black),
        Part("HL Road Rear Wheel", "RW-R820", 357.06m, 17, "R", Black, "H"),
        Part("ML Road Rear Wheel", "RW-R762", 275.39m, 17, "R", Black, "M"),
        Part("LL Road Rear Wheel", "RW-R623", 112.57m, 17, "R", Black, "L"),
        Part("HL Mountain Rear Wheel", "RW-M928", 327.22m, 17, "M", Black, "H"),
        Part("ML Mountain Rear Wheel", "RW-M762", 236.03m, 17, "M", Black, "M"),
        Part("LL Mountain Rear Wheel", "RW-M423", 87.75m, 17, "M", Black, "L"),
        Part("Touring Rear Wheel", "RW-T905", 245.01m, 17, "T", Black),
        Part("HL Crankset", "CS-9183", 404.99m, 8, null, Black, "H"),
        Part("ML Crankset", "CS-6583", 256.49m, 8, null, Black, "M"),
        Part("LL Crankset", "CS-4759", 175.49m, 8, null, Black, "L"),
        Part("Chain", "CH-0234", 20.24m, 7, null, Silver),
        Part("Front Derailleur", "FD-2342", 91.49m, 9, null, Silver),
        Part("Rear Derailleur", "RD-2308", 121.46m, 9, null, Silver),
        Part("HL Road Pedal", "PD-R853", 80.99m, 13, "R", Silver, "H"),
        Part("ML Road Pedal", "PD-R563", 62.09m, 13, "R", Silver, "M"),
        Part("LL Road Pedal", "PD-R347", 40.49m, 13, "R", Silver, "L"),
        Part("HL Mountain Pedal", "PD-M562", 80.99m, 13, "M", Silver, "H"),
        Part("ML Mountain Pedal", "PD-M340", 62.09m, 13, "M", Silver, "M"),
        Part("LL Mountain Pedal", "PD-M282", 40.49m, 13, "M", Silver, "L"),
        Part("Touring Pedal", "PD-T852", 80.99m, 13, "T", Silver),
        Part("HL Fork", "FK-5136", 229.49m, 10, null, null, "H"),
        Part("ML Fork", "FK-1639", 175.49m, 10, null, null, "M"),
        Part("LL Fork", "FK-9939", 148.22m, 10, null, null, "L"),
        Part("HL Headset", "HS-3479", 124.73m, 11, null, null, "H"),
        Part("ML Headset", "HS-2451", 102.29m, 11, null, null, "M"),
        Part("LL Headset", "HS-0296", 34.20m, 11, null, null, "L"),
        Part("HL Bottom Bracket", "BB-9108", 121.49m, 5, null, null, "H"),
        Part("ML Bottom Bracket", "BB-8107", 101.24m, 5, null, null, "M"),
        Part("LL Bottom Bracket", "BB-7421", 53.99m, 5, null, null, "L"),
        Part("Front Brakes", "FB-9873", 106.50m, 6, null, Silver),
        Part("Rear Brakes", "RB-9231", 106.50m, 6, null, Silver),
        Part("HL Road Seat/Saddle", "SE-R995", 52.64m, 15, "R", null, "H"),
        Part("ML Road Seat/Saddle", "SE-R908", 39.14m, 15, "R", null, "M"),
        Part("LL Road Seat/Saddle", "SE-R581", 27.12m, 15, "R", null, "L"),
        Part("HL Mountain Seat/Saddle", "SE-M940", 52.64m, 15, "M", null, "H"),
        Part("ML Mountain Seat/Saddle", "SE-M798", 39.14m, 15, "M", null, "M"),
        Part("LL Mountain Seat/Saddle", "SE-M236", 27.12m, 15, "M", null, "L"),
        Part("HL Touring Seat/Saddle", "SE-T924", 52.64m, 15, "T", null, "H"),
        Part("ML Touring Seat/Saddle", "SE-T762", 39.14m, 15, "T", null, "M"),
        Part("LL Touring Seat/Saddle", "SE-T312", 27.12m, 15, "T", null, "L"),
    ];

    /// <summary>Components that are built into products but never sold alone (ListPrice 0, no subcategory).</summary>
    public static readonly (string Name, string Number)[] RawParts =
    [
        ("Adjustable Race", "AR-5381"), ("Bearing Ball", "BA-8327"), ("BB Ball Bearing", "BE-2349"),
        ("Headset Ball Bearings", "BE-2908"), ("Blade", "BL-2036"), ("LL Crankarm", "CA-5965"),
        ("ML Crankarm", "CA-6738"), ("HL Crankarm", "CA-7457"), ("Chainring Bolts", "CB-2903"),
        ("Chainring Nut", "CN-6137"), ("Chainring", "CR-7833"), ("Crown Race", "CR-9981"), ("Chain Stays", "CS-2812"),
        ("Decal 1", "DC-8732"), ("Decal 2", "DC-9824"), ("Down Tube", "DT-2377"), ("Mountain End Caps", "EC-M092"),
        ("Road End Caps", "EC-R098"), ("Touring End Caps", "EC-T209"), ("Fork End", "FE-3760"),
        ("Freewheel", "FH-2981"), ("Guide Pulley", "GP-0982"), ("Fork Crown", "FC-3654"), ("Head Tube", "HT-2981"),
        ("Handlebar Tube", "HT-8019"), ("Keyed Washer", "KW-4091"), ("Lock Ring", "LR-2398"),
        ("Lower Head Race", "LR-8520"), ("Metal Angle", "MA-7075"), ("Pinch Bolt", "PB-6109"),
        ("Rim Band", "RB-9938"), ("Seat Lug", "SL-0931"), ("Seat Post", "SP-2981"), ("Seat Stays", "SS-2985"),
        ("Seat Tube", "ST-9828"), ("Spokes", "SK-9283"), ("Steerer", "SE-1372"), ("Stem", "SE-0390"),
        ("Tension Pulley", "TP-0923"), ("Top Tube", "TO-2301"), ("Touring Rim", "RM-T801"),
        ("Mountain Rim", "RM-M823"), ("Road Rim", "RM-R800"), ("Cup-Shaped Race", "RC-0291"),
        ("Cone-Shaped Race", "RA-2345"), ("Reflector", "RF-9198"), ("Rear Derailleur Cage", "RC-0291C"),
        ("Front Derailleur Cage", "FC-3982"), ("Front Derailleur Linkage", "FL-2301"), ("Paint - Black", "PA-187B"),
        ("Paint - Red", "PA-632U"), ("Paint - Silver", "PA-529S"), ("Paint - Blue", "PA-823Y"),
        ("Paint - Yellow", "PA-361R"), ("Metal Bar 1", "MB-2024"), ("Metal Bar 2", "MB-6061"),
    ];

    /// <summary>Numbered hardware series ("Hex Nut 7" / "HN-4407"), cycled to fill the catalogue up to 504 rows.</summary>
    public static readonly (string Name, string Prefix, int Count)[] NumberedParts =
    [
        ("Hex Nut", "HN", 23), ("Lock Nut", "LN", 23), ("Lock Washer", "LW", 13), ("Flat Washer", "FW", 9),
        ("Thin-Jam Hex Nut", "HJ", 16), ("Thin-Jam Lock Nut", "LJ", 16), ("Internal Lock Washer", "LI", 10),
        ("External Lock Washer", "LE", 9), ("Metal Sheet", "SH", 7), ("Metal Plate", "PL", 3),
        ("Cap Screw", "CS", 20), ("Spoke Nipple", "SN", 20), ("Ball Bearing Seal", "BS", 20),
    ];
}
