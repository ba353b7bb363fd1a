"""Word lists behind the offline text analysis (private; no logic beyond building sets).

Every list is a whitespace-separated string turned into a ``frozenset`` at import time, so
lookups are O(1) and the module stays compact. Lists are lowercase and hand-curated for
conversational English (chat turns, questions about them); they are deliberately small
and conservative: a word missing from a list only degrades a heuristic, never crashes it.
The exceptions to singularisation are in :mod:`langmemcore.text._plurals`.
"""

from __future__ import annotations


def word_set(text: str) -> frozenset[str]:
    """Split a whitespace-separated word list into a frozenset."""
    return frozenset(text.split())


DETERMINERS = word_set(
    """a an the this that these those my your his her its our their some any each every no
    another many few several much more most all both either neither such whose what which
    one two three four five six seven eight nine ten eleven twelve twenty hundred thousand
    first second third last next other own"""
)

PREPOSITIONS = word_set(
    """of in on at for with about from by after before during into onto over under through
    without around near since until till between among across behind beyond toward towards
    upon within against along via per despite except inside outside throughout amid beside
    besides past like unlike regarding including"""
)

SUBJECT_PRONOUNS = word_set(
    """i you he she it we they who i'm you're he's she's it's we're they're i've you've
    we've they've i'd you'd he'd she'd we'd they'd i'll you'll he'll she'll we'll they'll
    that there this"""
)

AUXILIARIES = word_set(
    """am is are was were be been being have has had having do does did done can could will
    would shall should may might must ought to not never don't doesn't didn't can't couldn't
    won't wouldn't shouldn't isn't aren't wasn't weren't haven't hasn't hadn't mustn't
    gonna wanna gotta let's let"""
)

_FUNCTION_EXTRA = """i me my mine myself you your yours yourself yourselves he him his himself she
    her hers herself it its itself we us our ours ourselves they them their theirs themselves
    and or but nor so yet if then than because as while whereas although though unless
    whether when where why how what which who whom whose whoever whatever whenever wherever
    however here there now just also too very really quite pretty rather even still already
    again ever always often sometimes usually only almost maybe perhaps probably definitely
    absolutely totally actually basically literally especially anyway anyways lately soon
    later earlier else instead together apart away back up down out off over around
    something anything everything nothing someone anyone everyone nobody somebody anybody
    everybody somewhere anywhere everywhere nowhere one ones oneself
    that's what's there's here's who's how's where's when's why's it'll that'll there'll
    what'll how'd how're how've what're what've where'd why'd it'd that'd there'd who'd
    who've who'll ain't y'all let's aren't isn't o'clock kinda sorta lotta outta gonna
    wanna gotta dunno lemme gimme em til cause cuz coz bc bout round
    yes no not yeah ok okay alright sure sort kind lot lots bit bunch plenty enough
    very much many more most less least few little plus minus"""

FILLERS = word_set(
    """hey hi hello hiya howdy yo wow woah whoa woohoo wooho yay yippee aww aw awww oh ohh ooh
    hah heh meh welp ah ahh uh um umm hmm hm huh eh oops oof ouch ugh phew yikes gosh geez
    jeez omg lol lmao haha hahaha hehe xd yep yup yeah yea nah nope yess thanks thank thx ty
    congrats congratulations cheers bye goodbye cya please pls sorry welcome dude buddy pal bro sis
    hun hon dear mate guys btw imo tbh fyi idk ikr np brb ttyl xoxo hooray bravo kudos amen
    agreed"""
)

STOPWORDS = DETERMINERS | PREPOSITIONS | SUBJECT_PRONOUNS | AUXILIARIES | word_set(_FUNCTION_EXTRA)

WEAK_ADJECTIVES = word_set(
    """good great nice cool awesome amazing wonderful beautiful lovely fantastic incredible
    terrific fabulous brilliant excellent superb super perfect fine okay bad terrible awful
    horrible big huge little small tiny large new old young best better worst worse
    favorite favourite special real whole same different important hard tough easy fun
    funny happy glad sad excited exciting proud sure busy crazy cute sweet kind nice
    interesting inspiring amazing awesome incredible rewarding fulfilling challenging
    relaxing refreshing encouraging motivating surprising touching thrilling heartwarming
    uplifting empowering satisfying stunning charming boring calming soothing overwhelming
    eye-opening mind-blowing life-changing exhausting tiring amazing positive negative
    main major minor true false certain possible impossible able unable likely unlikely
    key great huge long short high low full empty open free ready keen eager grateful
    thankful lucky blessed awesome sorry fond thrilled stoked pumped jealous nervous
    scared afraid worried anxious stressed tired hungry sick healthy safe strong weak
    brave cozy comfy lovely gorgeous adorable precious pleasant solid fresh deep dear
    wild crazy chill simple basic common general usual normal regular various several
    recent current past future latest first last next final early late ok alright similar
    right wrong
    entire certain particular actual whole extra worth heartbreaking"""
)

ADVERBS = word_set(
    """so very really quite pretty rather too also just even still already again ever never
    always often sometimes usually soon now then later earlier today tomorrow yesterday
    tonight here there maybe perhaps almost nearly anyway anyways indeed instead otherwise
    besides meanwhile afterwards together apart away back forward forwards ahead abroad
    alone far farther further much more most less least enough well fast hard long
    once twice yet somehow anymore lately recently finally definitely honestly literally
    seriously totally truly absolutely actually basically especially probably hopefully
    thankfully luckily sadly unfortunately fortunately super extra kinda sorta"""
)

INTENSIFIERS = word_set(
    "so very really pretty too quite super more most extremely incredibly truly such totally"
)

LY_NOUNS = word_set(
    """family italy july butterfly jelly belly rally ally supply assembly bully lily holly
    folly anomaly monopoly fly firefly dragonfly dolly molly polly sally emily kelly billy
    reilly reply apply comply rely ply bubbly melancholy homily doily gully tally sully
    filly"""
)

# Past forms that are nouns, so the "-ed means verb" rule must skip them.
ED_NOUNS = word_set(
    """bed red shed seed speed need feed weed breed greed hundred sacred naked wicked sled
    bred led wed shred embed creed steed deed reed bleed freed tweed ted ned fred med"""
)

PURE_VERBS = word_set(
    """be have do go get make take say see know think want seem become give tell feel bring
    keep let begin try leave ask mean believe happen include continue learn understand
    remember consider appear buy wait serve die send expect stay reach kill remain suggest
    raise pass sell require decide pull add allow lead spend grow open win offer lose
    meet pay hear sit stand sing speak recognise recognize find put set come stop turn
    follow create provide hold write read lie lay rise carry describe explain enjoy
    realize realise miss hate prefer wonder guess imagine agree share manage achieve
    receive accept apply avoid admit affect afford arrive attend become belong borrow
    bought brought caught chose choose catch check collect compare complete contain
    convince deserve discover encourage ensure explore forget forgive hang hide hit hurt
    improve inspire introduce invite join kick knew lend listen mention motivate notice
    obtain own prepare pretend protect prove push relax rely remind remove reveal ride
    seek shake shoot shut sleep smell solve sound spread steal stick strike swear
    teach throw touch treat understand wake wear welcome wish worry celebrate connect
    embrace overcome pursue reflect appreciate adopt cherish chat hang meet reconnect
    figure handle focus deal struggle thank keep bring used discuss blend suppose notice
    disagree argue complain apologize apologise congratulate persuade warn develop produce
    accomplish maintain organize organise arrange repair wash earn beat fail enter jump cry
    scream shout whisper select adore admire respect doubt involve consist deliver upload
    download gather tend reckon recommend intend attempt bond heal thrive survive succeed
    persevere adapt adjust unwind recharge grab chill binge scroll hear sound seem partake
    enroll enrol sign registered graduate retire resign quit apply hire fire reply respond
    emphasize emphasise highlight volunteer accompany hang stumble gain lose miss owe
    express transform brighten promote participate compare describe cover reconnect
    encourage empower uplift nurture foster motivate boost ease calm soothe celebrate
    honor honour remember reminisce expand launch open renovate decorate invest contribute
    cease amaze tackle rehearse pick lean fly reach achieve discover grow learn spread
    wander roam snap capture witness attend host sponsor enroll mentor coach shape
    inspire deserve ignore recover cope vent calm ground center explore admire gift"""
)

# Verbs that are also everyday nouns: nouns by default, verbs only in verbal context.
NOUN_VERBS = word_set(
    """work run walk plan paint dance help play visit support hike swim cook bake travel race
    change start study show care experience design record film camp volunteer research
    call drive drink eat fight fish garden jog kiss laugh look move note order photograph
    practice practise promise question rest return review shop sign skate ski smile snow
    step stress surf talk taste test text trip vote watch place water picture name mind
    hug kick escape dream update view lift love need hope wish nap rain read set cut
    climb sketch draw craft sew knit blog post stream host act model coach mentor
    date feed fix guide head hunt judge land lead mark matter pack pitch plant print
    project protest rate rock score sail seat shape sketch sort spark spot stretch style
    surprise tour trade train trust turn use vacation voice wave workout
    exercise network interview journal farm tutor donate answer call text post type value
    stop ride shoot sleep treat touch push catch check chat deal struggle figure spread
    stick fire sign stand stay win share meet kick smell shake steal invite pass wait find
    embrace notice strike
    offer balance hang sound mention impact effect benefit fund focus hope"""
)

LIGHT_ING = word_set(
    """going doing getting having being making taking thinking feeling looking trying saying
    coming wanting hoping wondering seeing knowing telling giving keeping letting putting
    loving liking enjoying needing meaning seeming becoming bringing starting finishing
    happening working planning considering trying checking gonna finding leaving staying
    waiting helping showing sharing talking chatting hearing catching using sending
    telling reminding realizing realising appreciating continuing managing dealing
    struggling handling glad everything something anything nothing thing morning evening
    during according including regarding pending"""
)

GENERIC_NOUNS = word_set(
    """thing stuff lot bit way kind sort type part piece place point case fact side end
    one time times day today something anything everything nothing someone anyone
    everyone people person guy guys folks man woman others other lots bunch couple few
    stuff reason question answer word words news note look idea ideas example chance
    matter deal while moment minute second hour week weekend month year years days
    weeks months tonight tomorrow yesterday morning afternoon evening night pic pics
    photo photos picture pictures shot snap snaps selfie picture image pic glimpse
    sense hand hands number lot level area aspect detail details kinds types sorts
    thanks luck fun chat talk catch catchup update outlet"""
)

ABSTRACT_NOUNS = word_set(
    """life journey experience feeling feelings emotion emotions moment memory memories
    mind heart soul joy love happiness sadness strength courage support advice
    opportunity reminder progress success struggle struggles challenge challenges hope
    dream dreams passion purpose goal goals motivation inspiration encouragement peace
    comfort balance growth change effort energy vibe vibes mood spirit attitude perspective
    understanding importance impact difference power value meaning belief beliefs faith
    gratitude kindness acceptance freedom confidence patience pride fear anxiety stress
    issue issues problem problems situation thought thoughts lesson lessons skill skills
    opinion view views future past present world reality truth nature"""
)

TIME_WORDS = word_set(
    """today tonight tomorrow yesterday day days week weeks weekend weekends month months
    year years morning afternoon evening night nights hour hours minute minutes decade
    decades century ago season seasons spring summer autumn fall winter daily weekly
    monthly yearly annual annually times time tues thur thurs fri monday tuesday wednesday
    thursday friday saturday sunday january february march april may june july august
    september october november december sept midnight noon"""
)

FAMILY_TITLES = word_set(
    """mom mum mommy mummy mother dad daddy father grandma grandpa granny grandad grandmother
    grandfather nana papa sis bro auntie aunt uncle sir madam ma'am god lord"""
)

# Capitalised words that are never names on their own (sentence-initial or not).
NOT_NAMES = word_set(
    """i i'm i've i'd i'll ok okay tv lol omg btw diy pm am ps asap fyi aka etc vs ceo
    internet"""
)

FIRST_NAMES = word_set(
    """james john robert michael william david richard joseph thomas charles christopher
    daniel matthew anthony mark donald steven paul andrew joshua kenneth kevin brian george
    timothy ronald edward jason jeffrey ryan jacob gary nicholas eric jonathan stephen larry
    justin scott brandon benjamin samuel gregory alexander frank patrick raymond jack dennis
    jerry tyler aaron jose adam nathan henry douglas zachary peter kyle noah ethan jeremy
    walter christian keith roger terry austin sean gerald carl harold dylan arthur lawrence
    jordan jesse bryan billy bruce gabriel joe logan alan juan albert willie elijah wayne
    randy vincent liam mason lucas oliver max leo oscar rob bob tom tim jim mike dave dan
    matt steve chris nick sam ben alex jon ed ted fred ray joe luke jake owen caleb
    mary patricia jennifer linda elizabeth barbara susan jessica sarah karen lisa nancy
    betty sandra margaret ashley kimberly emily donna michelle carol amanda melissa
    deborah stephanie dorothy rebecca sharon laura cynthia amy kathleen angela shirley
    brenda emma anna pamela nicole samantha katherine christine helen debra rachel carolyn
    janet maria catherine heather diane olivia julie joyce victoria ruth virginia lauren
    kelly christina joan evelyn judith andrea hannah megan cheryl jacqueline martha
    madison teresa gloria sara janice ann kathryn abigail sophia frances jean alice judy
    isabella julia grace amber denise danielle marilyn beverly charlotte natalie theresa
    diana brittany doris kayla alexis lori marie mia ava chloe zoe lily ella lucy sophie
    caroline melanie mel gina jane kate kim jenny jen liz beth meg sue pam tina cindy
    nina rosa carla paula lena eva ivy ruby rose jade luna stella hazel violet bella
    coco shadow buddy bailey charlie daisy molly rocky duke bear toby lola"""
)

PLACES = word_set(
    """afghanistan albania algeria argentina armenia australia austria bangladesh belgium
    bolivia brazil bulgaria cambodia canada chile china colombia croatia cuba cyprus
    czechia denmark ecuador egypt england estonia ethiopia finland france georgia germany
    ghana greece guatemala haiti honduras hungary iceland india indonesia iran iraq
    ireland israel italy jamaica japan jordan kenya korea laos latvia lebanon libya
    lithuania luxembourg malaysia mali malta mexico mongolia morocco nepal netherlands
    nigeria norway pakistan panama paraguay peru philippines poland portugal qatar
    romania russia rwanda scotland senegal serbia singapore slovakia slovenia somalia
    spain sudan sweden switzerland syria taiwan tanzania thailand tunisia turkey uganda
    ukraine uruguay venezuela vietnam wales yemen zambia zimbabwe bahamas barbados
    maldives seychelles mauritius fiji hawaii alaska california texas florida oregon
    washington nevada arizona utah colorado montana idaho wyoming nebraska kansas
    arkansas oklahoma missouri iowa minnesota wisconsin illinois michigan indiana ohio
    kentucky tennessee alabama mississippi louisiana virginia carolina maryland delaware
    pennsylvania jersey york connecticut massachusetts vermont maine london paris rome
    berlin madrid barcelona lisbon amsterdam brussels vienna prague athens dublin
    edinburgh stockholm oslo copenhagen helsinki warsaw budapest moscow istanbul cairo
    dubai tokyo kyoto osaka seoul beijing shanghai delhi mumbai bangkok sydney melbourne
    toronto vancouver montreal boston chicago seattle portland denver dallas houston
    austin phoenix atlanta miami orlando vegas angeles francisco diego detroit nashville
    memphis philadelphia baltimore brooklyn manhattan yosemite yellowstone europe asia
    africa america americas antarctica"""
)

# Irregular verb forms, "base:form,form" (regular -s / -ed / -ing forms are generated).
IRREGULAR_VERBS = """be:am,is,are,was,were,been,being have:has,had,having do:does,did,done
    go:goes,went,gone make:made get:got,gotten take:took,taken say:said see:saw,seen
    know:knew,known think:thought give:gave,given tell:told feel:felt bring:brought
    keep:kept begin:began,begun leave:left mean:meant buy:bought catch:caught
    teach:taught sell:sold send:sent spend:spent build:built lose:lost win:won meet:met
    pay:paid hear:heard sit:sat stand:stood sing:sang,sung speak:spoke,spoken
    find:found hold:held write:wrote,written read:read ride:rode,ridden rise:rose,risen
    eat:ate,eaten drink:drank,drunk drive:drove,driven fall:fell,fallen fly:flew,flown
    forget:forgot,forgotten grow:grew,grown hide:hid,hidden hang:hung lead:led lend:lent
    run:ran swim:swam,swum shake:shook shoot:shot sleep:slept steal:stole stick:stuck
    strike:struck swear:swore throw:threw,thrown understand:understood wake:woke,woken
    wear:wore,worn become:became come:came overcome:overcame choose:chose,chosen
    break:broke,broken blow:blew,blown draw:drew,drawn feed:fed fight:fought
    forgive:forgave,forgiven put:put set:set let:let cut:cut hit:hit hurt:hurt quit:quit
    spread:spread seek:sought bite:bit,bitten dig:dug light:lit"""

ACTIVITY_VERBS = word_set(
    """paint dance hike swim cook bake travel camp volunteer run walk ski surf skate climb
    sketch draw knit sew garden fish jog sing write read blog play kayak bike cycle golf
    hunt sail race study practice practise meditate photograph skateboard snowboard
    perform compete train exercise ride craft journal mentor tutor donate"""
)

VERB_TRIGGERS = word_set(
    """i you we they he she it who to not never can could will would should
    might must may do does did don't didn't can't won't wouldn't couldn't shouldn't
    i'll we'll you'll they'll he'll she'll i'd we'd you'd they'd he'd she'd gonna wanna
    gotta let's lets also always just really often usually sometimes still even actually
    definitely totally probably finally"""
)

OBJECT_STARTERS = word_set(
    """a an the this that these those my your his her our their its some any me him them
    us it you myself yourself himself herself ourselves themselves out up off down back
    over around through away"""
)

PROPER_CONNECTORS = word_set("of the de da del di du la le van von y")

MODIFIABLE_TIME_WORDS = word_set(
    "morning afternoon evening night weekend summer spring fall autumn winter day holiday"
)

RELATIVE_QUALIFIERS = word_set("last this next every each that past coming previous")

GENERIC_HEADS = word_set("thing things stuff lot lots bit kind sort way one ones type part")

# Evaluative-leaning suffixes: trimmed from phrases like the weak adjectives ("helpful").
ADJECTIVE_SUFFIXES = ("ful", "ous")

# Descriptive-leaning suffixes: kept in phrases ("affordable housing", "homeless
# shelter") but never a keyword alone.
PLAIN_ADJECTIVE_SUFFIXES = ("able", "ible", "less")

SUFFIX_NOUNS = word_set(
    """table cable vegetable fable stable label bible timetable constable turntable
    notable roomful handful spoonful mouthful armful cupful bucketful"""
)

# Light verbs: dropped from the query topic ("When did X go to Y?" -> "X Y").
LIGHT_VERBS = word_set(
    """be am is are was were been being have has had do does did done go goes went gone
    get gets got gotten make makes made take takes took taken come comes came happen
    happened happens say said tell told think thought feel felt use used want need try let
    keep seem become give put know see like love hope wish plan decide begin start stop
    continue manage"""
)

# Adjectives that may modify a noun ("mental health") but are never a keyword alone.
PLAIN_ADJECTIVES = word_set(
    """mental physical emotional social personal local creative positive negative natural
    cultural political financial professional supportive artistic spiritual religious
    musical sentimental crucial essential vital necessary useful helpful clean clear dirty
    quiet loud warm cold hot dark bright soft rough smooth heavy quick slow rich poor cheap
    expensive grippy comfy cozy messy tidy fancy casual formal public private daily weekly
    monthly annual national international global online digital virtual complete entire
    unique rare popular famous familiar strange weird odd serious silly fit active calm
    peaceful chill safe ready available responsible independent confident curious honest
    open different other new own various true accepted connected involved interested
    inspired motivated determined committed dedicated passionate grateful thankful"""
)

COPULAS = word_set("be been being is am are was were i'm you're we're they're he's she's it's")
