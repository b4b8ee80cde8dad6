package scaledata

// nouns are the words a message draws its 0–24 words from: common English
// nouns, each once, written for vloki. A list of this size puts a given
// word such as "queen" in a few percent of lines, as in the Quickwit
// benchmark's data (1 − (1 − 1/len)^k averaged over k, ≈ 2.8% here).
var nouns = []string{
	"acorn", "actor", "adder", "admiral", "alarm", "album", "alley", "almond", "amber", "anchor",
	"angel", "ankle", "antler", "apple", "apron", "arch", "archer", "arena", "armor", "arrow",
	"atlas", "attic", "aunt", "autumn", "avenue", "axe", "badge", "bagel", "bakery", "ball",
	"banana", "band", "banjo", "bank", "banner", "barn", "barrel", "basket", "bat", "bay",
	"beach", "beacon", "bean", "bear", "beard", "beaver", "bee", "beetle", "bell", "belt",
	"bench", "berry", "bicycle", "bird", "bishop", "blade", "blanket", "blossom", "boat", "bone",
	"book", "boot", "bottle", "boulder", "bow", "bowl", "box", "bracelet", "branch", "bread",
	"brick", "bridge", "brook", "broom", "brush", "bubble", "bucket", "buffalo", "bugle", "bull",
	"bunny", "butter", "button", "cabin", "cable", "cactus", "cake", "camel", "camera", "candle",
	"cannon", "canoe", "canyon", "cap", "captain", "car", "card", "carpet", "carrot", "castle",
	"cat", "cave", "cedar", "cellar", "chain", "chair", "chalk", "cheese", "cherry", "chess",
	"chicken", "chimney", "church", "cider", "circle", "city", "cliff", "clock", "cloud", "clover",
	"coast", "coat", "cobra", "coconut", "coin", "comet", "compass", "copper", "coral", "corn",
	"cottage", "cotton", "cougar", "cousin", "cow", "crab", "crane", "crater", "crayon", "cricket",
	"crow", "crown", "crystal", "cup", "curtain", "daisy", "dancer", "dawn", "deer", "desert",
	"diamond", "dingo", "dolphin", "donkey", "door", "dove", "dragon", "drum", "duck", "dune",
	"eagle", "ear", "earth", "easel", "eel", "egg", "elbow", "elephant", "elk", "ember",
	"engine", "falcon", "farm", "feather", "fence", "fern", "ferry", "field", "finger", "fire",
	"fish", "flag", "flame", "flute", "fog", "forest", "fork", "fossil", "fountain", "fox",
	"frog", "frost", "fruit", "galaxy", "garden", "garlic", "gate", "gazelle", "gecko", "ghost",
	"giant", "ginger", "giraffe", "glacier", "glove", "goat", "goose", "gorilla", "grape", "grass",
	"griffin", "guitar", "hammer", "hand", "harbor", "harp", "hat", "hawk", "heart", "hedge",
	"helmet", "hero", "heron", "hill", "hippo", "honey", "hook", "horizon", "horn", "horse",
	"hotel", "house", "hunter", "iceberg", "igloo", "island", "ivory", "jackal", "jacket", "jaguar",
	"jar", "jelly", "jewel", "judge", "jungle", "kangaroo", "kettle", "key", "king", "kite",
	"kitten", "knife", "knight", "koala", "ladder", "lake", "lamp", "lantern", "lark", "leaf",
	"lemon", "leopard", "letter", "library", "lily", "lion", "lizard", "llama", "lobster", "lock",
	"lotus", "lynx", "magnet", "mango", "map", "maple", "marble", "market", "mask", "meadow",
	"melon", "mirror", "mole", "monkey", "moon", "moose", "moth", "mountain", "mouse", "mule",
	"museum", "needle", "nest", "net", "night", "nut", "oak", "oasis", "ocean", "octopus",
	"olive", "onion", "orange", "orchid", "otter", "owl", "ox", "oyster", "paddle", "palace",
	"panda", "panther", "paper", "parrot", "peach", "pear", "pearl", "pebble", "pelican", "pencil",
	"penguin", "pepper", "piano", "pigeon", "pillow", "pine", "pirate", "planet", "plum", "pond",
	"pony", "poppy", "potato", "prince", "puma", "pumpkin", "puppet", "python", "quail", "queen",
	"quill", "rabbit", "raccoon", "radio", "rain", "rainbow", "raven", "reef", "rhino", "ribbon",
	"rice", "river", "road", "robin", "rocket", "rose", "ruby", "saddle", "sail", "salmon",
	"sand", "scale", "scarf", "scorpion", "seal", "shark", "sheep", "shell", "ship", "shoe",
	"silver", "singer", "skunk", "sloth", "snail", "snake", "soldier", "sparrow", "spider", "spoon",
	"squid", "stable", "star", "stone", "storm", "stream", "sugar", "summer", "sun", "swan",
	"sword", "table", "temple", "tiger", "toad", "tomato", "tower", "train", "tree", "trout",
	"trumpet", "tulip", "turtle", "umbrella", "valley", "vase", "violin", "volcano", "vulture", "wagon",
	"walrus", "wasp", "whale", "wheat", "wheel", "willow", "window", "wizard", "wolf", "zebra",
}

// namePrefixes and nameSuffixes make the generator's names such as
// "coldraccoon" or "novachopper" (agent, host, log stream, event id): one
// word of each glued together, so no name holds a noun as a word of its own.
var namePrefixes = []string{
	"amber", "ash", "autumn", "black", "blaze", "blue", "brave", "bright", "bronze", "calm",
	"cold", "copper", "coral", "crimson", "crystal", "cyan", "dark", "dawn", "deep", "dour",
	"dream", "dusk", "dust", "ember", "fire", "flint", "fog", "frost", "gentle", "ghost",
	"glen", "gold", "granite", "gray", "green", "grim", "hazel", "honey", "ice", "indigo",
	"iron", "ivory", "jade", "keen", "lava", "lemon", "light", "lime", "lucky", "lunar",
	"magic", "marsh", "mellow", "midnight", "mint", "misty", "moss", "night", "noble", "nova",
	"ocean", "olive", "onyx", "pale", "peach", "pearl", "pine", "plum", "proud", "quick",
	"quiet", "rain", "red", "river", "rock", "rose", "ruby", "rust", "sage", "salt",
	"sand", "shadow", "silent", "silver", "sky", "slate", "snow", "solar", "spark", "steel",
	"stone", "storm", "sun", "swift", "thunder", "tidal", "violet", "wild", "wind", "winter",
}

var nameSuffixes = []string{
	"badger", "bane", "bat", "bear", "beetle", "bird", "blade", "boar", "bolt", "buck",
	"bull", "cat", "chaser", "chopper", "claw", "cobra", "condor", "crest", "crow", "cutter",
	"dagger", "dancer", "deer", "diver", "dog", "dragon", "drake", "duck", "eagle", "eater",
	"elk", "falcon", "fang", "finch", "fox", "gazer", "goat", "goose", "grip", "guard",
	"hawk", "heart", "hound", "hunter", "jackal", "jaw", "keeper", "kite", "lance", "lion",
	"lizard", "lynx", "mane", "mare", "mask", "mole", "moth", "mouse", "newt", "owl",
	"panther", "paw", "pike", "puma", "quill", "raccoon", "ram", "raven", "rider", "roar",
	"rover", "runner", "scale", "seeker", "shark", "shield", "singer", "skull", "snake", "spider",
	"spirit", "squid", "stag", "stalker", "stealer", "stinger", "strider", "swan", "tail", "talon",
	"thorn", "tiger", "toad", "tooth", "viper", "vulture", "walker", "whale", "wing", "wolf",
}

// regions are the 25 AWS regions of the benchmark's cloud.region (its
// Vector configuration: "~25 values"); 25 × 4 levels = its 100 streams.
var regions = []string{
	"us-east-1", "us-east-2", "us-west-1", "us-west-2", "af-south-1",
	"ap-east-1", "ap-south-1", "ap-south-2", "ap-northeast-1", "ap-northeast-2",
	"ap-northeast-3", "ap-southeast-1", "ap-southeast-2", "ap-southeast-3", "ap-southeast-4",
	"ca-central-1", "eu-central-1", "eu-central-2", "eu-west-1", "eu-west-2",
	"eu-west-3", "eu-south-1", "eu-south-2", "eu-north-1", "me-south-1",
}

// levels are the benchmark's four levels, as its records spell them.
var levels = []string{"INFO", "DEBUG", "WARN", "ERROR"}

// processes write the syslog part of a message.
var processes = []string{"systemd", "sshd", "kernel", "cron", "dhclient", "sudo", "rsyslogd", "dockerd"}
