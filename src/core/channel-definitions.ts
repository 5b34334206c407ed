/**
 * The real service's channel definitions, as data (PostHog/posthog posthog/models/channel_type/channel_definitions.json,
 * loaded there into the `channel_definition_dict` dictionary): which domain or utm_source is a search engine, a
 * social network, a shop, a video site or a mail client, and what a utm_medium means when paid or organic. The
 * rules that read them are ./channel-rules.ts.
 */

/** Kinds of source whose paid and organic channels follow their name ("Paid Search", "Organic Search"). */
export const SOURCE_KINDS = ["Search", "Social", "Shopping", "Video"] as const;
export type SourceKind = (typeof SOURCE_KINDS)[number] | "Email";

export interface ChannelDefinition {
  /** `$virt_initial_referring_domain_type`'s answer for this source. */
  domainType: string | null;
  ifPaid: string | null;
  ifOrganic: string | null;
}

/** Sources (utm_source values, referring domains, app ids) by kind, whitespace-separated. Mail sources have no paid channel. */
const SOURCES_BY_KIND: Readonly<Record<SourceKind, string>> = {
  Search: `
    360.cn ai.perplexity.app alice andisearch.com aol ar.search.yahoo.com ask ask.com at.search.yahoo.com
    au.search.yahoo.com auone avg babylon baidu baidu.com biglobe biglobe.co.jp biglobe.ne.jp bing bing.com
    bing.com.cn bing.net bingworld.com br.search.yahoo.com ca.search.yahoo.com centrum.cz ch.search.yahoo.com
    character.ai chat.deepseek.com chat.felo.ai chat.genspark.ai chat.mistral.ai chat.openai.com chat.qwen.ai
    chatglm.cn chatgpt.com cl.search.yahoo.com claude.ai cn.bing.com cnn co.search.yahoo.com coccoc.com
    com.coccoc.trinhduyet com.google.android.googlequicksearchbox com.microsoft.amp.apps.bingnews com.microsoft.bing
    com.microsoft.sapphire.news.daily com.swisscows.search com.yahoo.apps.yahooapp
    com.yahoo.frontpagecom.yahoo.weather com.yahoo.mobile.client.android.yahoo com.yahoo.onesearch com.yahoo.www.twa
    com.yandex.browser com.yandex.browser.broteam com.yandex.q com.yandex.qmobile com.yandex.rhythm
    com.yandex.searchapp com.yandex.yamb com.yandex.yango com.yandex.zen com.yandex.zen.logged comcast conduit
    copilot.cloud.microsoft copilot.microsoft.com crowdsearch.net cz.seznam.sbrowser daum daum.net de.search.yahoo.com
    deepseek.com directsearch.io dk.search.yahoo.com dogpile dogpile.com doubao.com duck.ai duckduckgo duckduckgo.com
    ecosia.org egerin.com email.seznam.cz eniro ernie.baidu.com es.search.yahoo.com espanol.search.yahoo.com
    exalead.com excite.com felo.ai fi.search.yahoo.com firmy.cz fr.search.yahoo.com gemini.google.com genspark.ai
    gibiru.com giga.chat gigablast.com globo go.mail.ru google google-play google.ad google.ae google.al google.am
    google.as google.at google.az google.ba google.be google.bf google.bg google.bi google.bj google.bs google.bt
    google.by google.ca google.cat google.cd google.cf google.cg google.ch google.ci google.cl google.cm google.cn
    google.co.ao google.co.bw google.co.ck google.co.cr google.co.id google.co.il google.co.in google.co.jp
    google.co.ke google.co.kr google.co.ls google.co.ma google.co.mz google.co.nz google.co.th google.co.tz
    google.co.ug google.co.uk google.co.uz google.co.ve google.co.vi google.co.za google.co.zm google.co.zw google.com
    google.com.af google.com.ag google.com.ar google.com.au google.com.bd google.com.bh google.com.bn google.com.bo
    google.com.br google.com.bz google.com.co google.com.cu google.com.cy google.com.do google.com.ec google.com.eg
    google.com.et google.com.fj google.com.gh google.com.gi google.com.gt google.com.hk google.com.jm google.com.kh
    google.com.kw google.com.lb google.com.ly google.com.mm google.com.mt google.com.mx google.com.my google.com.na
    google.com.ng google.com.ni google.com.np google.com.om google.com.pa google.com.pe google.com.pg google.com.ph
    google.com.pk google.com.pr google.com.py google.com.qa google.com.sa google.com.sb google.com.sg google.com.sl
    google.com.sv google.com.tj google.com.tr google.com.tw google.com.ua google.com.uy google.com.vc google.com.vn
    google.cv google.cz google.de google.dj google.dk google.dm google.dz google.ee google.es google.fi google.fm
    google.fr google.ga google.ge google.gg google.gl google.gm google.gr google.gy google.hn google.hr google.ht
    google.hu google.ie google.im google.iq google.is google.it google.je google.jo google.kg google.ki google.kz
    google.la google.li google.lk google.lt google.lu google.lv google.md google.me google.mg google.mk google.ml
    google.mn google.mu google.mv google.mw google.ne google.nl google.no google.nr google.nu google.pl google.pn
    google.ps google.pt google.ro google.rs google.ru google.rw google.sc google.se google.sh google.si google.sk
    google.sm google.sn google.so google.sr google.st google.td google.tg google.tl google.tm google.tn google.to
    google.tt google.vu google.ws grok.com haosou.com hey.pi.ai hk.search.yahoo.com hotbot.com hunyuan.tencent.com
    iask.ai id.search.yahoo.com in.search.yahoo.com incredimail info.com it.search.yahoo.com jp.co.rakuten.android
    juniorsafesearch.com junosearch.net kagi.com kiddle.co kidzsearch.com kimi.com komo.ai kvasir laban.vn
    lens.google.com lite.qwant.com lumo.proton.me lycos lycos.com m.baidu.com m.naver.com m.search.naver.com m.sm.cn
    m.sogou.com mail.rambler.ru mail.yandex.ru malaysia.search.yahoo.com manus.im marginalia-search.com meta.ai
    metacrawler.com metager.org mojeek.com msn msn.com mx.search.yahoo.com my-web-search.com najdi naver naver.com
    news.google.com nl.search.yahoo.com no.search.yahoo.com ntp.msn.com nz.search.yahoo.com oceanhero.today
    onesearch.com onet onet.pl pe.search.yahoo.com perplexity.ai ph.search.yahoo.com phind.com pl.onet.onethd
    pl.search.yahoo.com play.google.com poe.com presearch.com presearch.io quark.sm.cn qwant qwant.com rakuten
    rakuten.co.jp rambler rambler.ru ru.beru.android ru.rambler.mail ru.rambler.news ru.yandex.auth.client
    ru.yandex.blue.market ru.yandex.bus.tickets ru.yandex.disk ru.yandex.key ru.yandex.messenger ru.yandex.metro
    ru.yandex.mobile ru.yandex.mobile.bus.tickets ru.yandex.mobile.metro ru.yandex.mobile.music
    ru.yandex.mobile.navigator ru.yandex.mobile.navigator.sandbox ru.yandex.mobile.q ru.yandex.mobile.search
    ru.yandex.mobile.search.ipad ru.yandex.mobile.yamb ru.yandex.mobile.zen ru.yandex.mobile.zen-enterprise
    ru.yandex.music ru.yandex.rhythm ru.yandex.searchplugin ru.yandex.taxi ru.yandex.traffic ru.yandex.traffic.sandbox
    ru.yandex.weatherplugin ru.yandex.yandexmaps ru.yandex.yandexmaps.pr ru.yandex.yandexnavi ru.yandex.yandexnavi.pr
    ru.yandex.yango ru.yandex.ytaxi ru.zen.android ru.zen.android.logged sarvam.ai se.search.yahoo.com search-results
    search-results-now.com search.aol.co.uk search.aol.com search.brave.com search.google.com search.lilo.org
    search.nate.com search.smt.docomo.ne.jp search.ukr.net search.xyz searchlock.com secureurl.ukr.net sevasearch.org
    seznam seznam.cz sg.search.yahoo.com so.360.cn so.com sogou sogou.com sp-web.search.auone.jp startpage.com
    startsiden startsiden.no suche.aol.de swisscows.com szukaj.onet.pl szukaj.wp.pl t3.chat tbbtyf terra
    th.search.yahoo.com tr.search.yahoo.com tusksearch.com tut.by tw.search.yahoo.com uk.search.yahoo.com ukr
    us.search.yahoo.com venice.ai virgilio vn.search.yahoo.com wap.sogou.com webcrawler.com webmaster.yandex.ru
    websearch.rakuten.co.jp www.ask.com www.baidu.com www.dogpile.com www.ecosia.org www.egerin.com www.excite.com
    www.gigablast.com www.hotbot.com www.juniorsafesearch.com www.junosearch.net www.kiddle.co www.kidzsearch.com
    www.lycos.com www.metacrawler.com www.mojeek.com www.onesearch.com www.qwant.com www.searchlock.com www.sogou.com
    www.startpage.com www.webcrawler.com xinghuo.xfyun.cn yahoo yahoo.co.jp yahoo.com yandex yandex.by yandex.com
    yandex.com.tr yandex.fr yandex.kz yandex.ru yandex.ua yandex.uz yep.com yiyan.baidu.com you.com
    yuanbao.tencent.com zen.yandex.ru
  `,
  Social: `
    43things 43things.com 51.com 5ch.io 5ch.net academia.edu activerain activerain.com activeworlds activeworlds.com
    addthis addthis.com air.com.myheritage.mobile airg.ca allnurses.com allrecipes.com alumniclass alumniclass.com
    ameba.jp ameblo.jp americantowns americantowns.com amp.reddit.com ancestry.com anobii anobii.com answerbag
    answerbag.com answers.yahoo.com aolanswers aolanswers.com apps.facebook.com ar.pinterest.com artstation.com
    askubuntu askubuntu.com asmallworld.com athlinks athlinks.com away.vk.com awe.sm b.hatena.ne.jp baby-gaga
    baby-gaga.com babyblog.ru badoo badoo.com band.us bebo bebo.com beforeitsnews beforeitsnews.com behance.net
    bharatstudent bharatstudent.com biip.no biswap.org bit.ly blackcareernetwork.com blackplanet blackplanet.com
    blip.fm blog.com blog.feedspot.com blog.goo.ne.jp blog.naver.com blog.yahoo.co.jp blogg.no bloggang.com blogger
    blogger.com blogher blogher.com bloglines bloglines.com blogs.com blogsome blogsome.com blogspot blogspot.com
    blogster blogster.com blurtit blurtit.com bookmarks.yahoo.co.jp bookmarks.yahoo.com br.pinterest.com brightkite
    brightkite.com brizzly brizzly.com bsky.app business.facebook.com buzzfeed buzzfeed.com buzznet buzznet.com
    cafe.naver.com cafemom cafemom.com camospace camospace.com canalblog.com care.com care2 care2.com caringbridge.org
    catster catster.com cbnt.io cellufun cellufun.com centerblog.net chat.zalo.me chegg.com chicagonow chicagonow.com
    chiebukuro.yahoo.co.jp classmates classmates.com classquest classquest.com co.pinterest.com cocolog-nifty
    cocolog-nifty.com com.academia.academia com.agens.android.vgsnarvei com.anobii com.asmallworld.android
    com.asmallworld.android_europa com.asmallworld.android_ganymede com.asmallworld.android_io com.atebits.tweetie2
    com.automattic.jetpack com.badoo.badoo com.badoo.badoo.enterprise com.badoo.badoospp com.badoo.badoospp.enterprise
    com.badoo.mobile com.badoo.twa com.ballistiq.artstation com.burbn.instagram com.buzzfeed.android
    com.buzzfeed.buzzfeed com.care.android.careview com.care.android.careview.providerapp com.care.enterprise
    com.care.iphone com.care.provider com.care.provider.enterprise com.caringbridge.app com.chegg
    com.couchsurfing.couchsurfing com.couchsurfing.mobile.android com.crunchyroll.crunchyroid
    com.deviantart.android.damobile com.deviantart.deviantart com.discord com.disqus.disqus com.draugiem2
    com.facebook.analytics com.facebook.analyticsapp com.facebook.atwork com.facebook.creatorstudio
    com.facebook.creatorstudio.master com.facebook.facebook com.facebook.katana com.facebook.lite com.facebook.madman
    com.facebook.messenger com.facebook.mobilehome com.facebook.moments com.facebook.orca com.facebook.pages.app
    com.facebook.scenes com.facebook.shoerack com.facebook.stella com.facebook.stellaapp com.facebook.stellaapp.master
    com.facebook.wakizashi com.facebook.workchat.local com.fandom.app com.flickr.android com.foursquare.playground
    com.goodreads com.goodreads.goodreads com.goodreads.grdummy com.goodreads.kindle com.google.android.apps.photos
    com.google.photos com.google.photos.enterprise com.google.spaces com.google.spaces.enterprise
    com.hammerandchisel.discord com.hatena.android.bookmark com.hi5.app com.houzz.app com.houzz.pro
    com.ibm.cloudvideo.android.broadcaster.app com.ibm.watsonmedia.videostreaming com.ideashower.readitlater.pro
    com.instagram.android com.instagram.barcelona com.instagram.lite com.italki.app com.jetpack.android
    com.jnj.mocospace.android com.joelapenna.foursquared com.leaplock.colorfulballoons com.lenovo.anyshare.gps
    com.linkedin.android com.linkedin.android.injobs com.linkedin.android.learning com.linkedin.android.salesnavigator
    com.linkedin.coworkers com.linkedin.lighthouse com.linkedin.lighthouseenterprise com.linkedin.linkedin
    com.linkedin.linkedin.enterprise com.linkedin.pulse com.linkedin.pulse.enterprise com.linkedin.recruiter
    com.linkedin.recruiter.enterprise com.linkedin.zephyr com.linkedin.zephyr.enterprise com.livejournal.android
    com.ljblogs.app com.medium.reader com.meetup com.meetup.organizer com.mix.android com.mixmedia.mix.appstore
    com.mubi com.mubi.go com.mubi.mubiapp com.oath.yahooapp com.oculus.facebook com.oculus.igvr com.photobucket.iphone
    com.pinterest com.pinterest.brio com.pinterest.classic com.pinterest.lite com.pinterest.ota com.pinterest.twa
    com.plurk.android com.plurk.plurkgit com.pocket.team.a com.pocket.team.b com.pocket.team.review
    com.quoord.tapatalk com.quoord.tapatalk2 com.quora.android com.quora.app.mobile com.reddit.frontpage
    com.reddit.reddit com.scribd.app.reader0 com.scribd.app.reader0.docs com.scribd.docs com.scribd.ent.docs
    com.scribd.ent.iscribd com.scribd.iscribd com.servicemagic.consumer com.servicemagic.consumer.adhoc
    com.servicemagic.pros com.servicemagic.pros.adhoc com.servicemagic.servicemagicconsumer
    com.servicemagic.servicemagicconsumer.adhoc com.servicemagic.servicemagicsp com.servicemagic.servicemagicsp-adhoc
    com.sharekaro.app com.snapchat.android com.snapchat.android.master com.snapchat.shotgun com.snapchat.snapchat
    com.ss.android.ugc.trill com.ss.iphone.ugc.ame com.stackexchange.marvin com.stackexchange.stackoverflow
    com.taggedapp com.toyopagroup.picaboo com.tripadvisor.localpicks com.twitter.android com.twitter.android.lite
    com.twitter.twttr com.vk.admin com.vk.calls com.vk.clips com.vk.im com.vk.love com.vk.tv com.vk.vkvideo
    com.vkontakte.android com.whatsapp com.whatsapp.w4b com.woocommerce.android com.woot.android.main
    com.woot.atlanta.ios com.woot.ios com.yahoo.frontpage com.yahoo.mobile.client.android.fantasyfootball
    com.yahoo.mobile.client.android.flickr com.yahoo.weather com.yammer.v1 com.yelp.android com.yelp.yelpiphone
    com.youku.international.iphone com.zhiliaoapp.musically com.zhiliaoapp.musically.ep copainsdavant.linternaute.com
    coracle.social couchsurfing.org cozycot cozycot.com cross.tv crunchyroll crunchyroll.com cyworld cyworld.com
    cz.pinterest.com d.hatena.ne.jp dailystrength.org de.werweisswas deluxe.com deviantart deviantart.com dianping
    dianping.com digg digg.com diigo diigo.com discord.com discord.gg discordapp.gg discover.hubpages.com disqus
    disqus.com dogster dogster.com dol2day dol2day.com doostang doostang.com dopplr dopplr.com douban douban.com
    draft.blogger.com draugiem.lv dribbble.com drugs-forum drugs-forum.com dzen.ru dzone dzone.com
    edu.academia.academia edublogs.org elftown elftown.com epicurious.com everforo.com exblog.jp extole extole.com
    facebook facebook.com faceparty faceparty.com fanbase.app fandom.com fanpop fanpop.com farcaster.xyz fark fark.com
    fb fb.me fc2 fc2.com feedspot feministing feministing.com filmaffinity filmaffinity.com flickr flickr.com
    flipboard flipboard.app flipboard.boxer.app flipboard.com folkdirect folkdirect.com foodservice foodservice.com
    forums.androidcentral.com forums.crackberry.com forums.imore.com forums.nexopia.com forums.webosnation.com
    forums.wpcentral.com fosstodon.org fotki fotki.com fotolog fotolog.com foursquare foursquare.com free.facebook.com
    friendfeed friendfeed.com fruehstueckstreff.org fubar fubar.com gab.com gaiaonline gaiaonline.com gamerdna
    gamerdna.com gather.com geni.com getpocket.com glassboard glassboard.com glassdoor glassdoor.com go.bsky.app
    godtube godtube.com goldenline.pl goldstar goldstar.com goo.gl gooblog goodreads goodreads.com google+
    googlegroups.com googleplus govloop govloop.com gowalla gowalla.com gree.jp groups.google.com gulli.com
    gutefrage.net habbo habbo.com hachyderm.io hatena hi5 hi5.com hootsuite hootsuite.com houzz houzz.com hoverspot
    hoverspot.com hr.com hu.pinterest.com hubculture hubculture.com hubpages.com hyves.net hyves.nl ibibo ibibo.com
    id.pinterest.com identi.ca ig ig.me imageshack imageshack.com imageshack.us imvu imvu.com in.pinterest.com
    infosec.exchange insanejournal insanejournal.com instagram instagram.com instapaper instapaper.com
    internations.org interpals.net intherooms intherooms.com irc-galleria.net iris.to is.gd italki italki.com
    jammerdirect jammerdirect.com jappy.com jappy.de jp.ameba jp.co.dwango.nicoplayer jp.gocro.smartnews.android
    jp.mixi jp.naver.line jp.naver.line.android jp.naver.line.rc jp.ne.goo.blog.gooblog.pro jp.ne.hatena
    jp.ne.hatena.bookmark-enterprise jp.nicovideo.android kaboodle.com kakao kakao.com kakaocorp.com kaneva kaneva.com
    kin.naver.com ko-fi.com l.facebook.com l.instagram.com l.messenger.com last.fm lemon8-app.com librarything
    librarything.com lifestream.aol.com lin.ee line line.me linkedin linkedin.com listal listal.com listography
    listography.com livedoor.com livedoorblog livejournal livejournal.com lm.facebook.com lnkd.in lv.draugiem.app
    m.blog.naver.com m.cafe.naver.com m.facebook.com m.kin.naver.com m.me m.vk.com m.yelp.com masto.ai mastodon.cloud
    mastodon.online mastodon.social mastodon.world mbga.jp medium.com meetin.org meetup meetup.com meinvz.net
    meneame.net menuism.com messages.google.com messages.yahoo.co.jp messenger messenger.com mewe.com minds.com
    mix.com mixi.jp mobile.facebook.com mocospace mocospace.com mouthshut mouthshut.com movabletype movabletype.com
    mstdn.jp mstdn.social mubi mubi.com my.opera.com myanimelist.net myheritage myheritage.com mylife mylife.com
    mymodernmet mymodernmet.com myspace myspace.com net.asmallworld.ios net.researchgate.shellapp
    net.researchgate.shellapp.office net.researchgate.shellapp.snapshot net.whatsapp.whatsapp net.whatsapp.whatsappsmb
    netvibes netvibes.com news.ycombinator.com newsshowcase nexopia ngopost.org niconico nicovideo.jp nightlifelink
    nightlifelink.com ning ning.com nl.pinterest.com no.vgsport noplace.app nostrudel.ninja note.com odnoklassniki.ru
    odnoklassniki.ua okwave.jp old.reddit.com oneworldgroup.org onlyfans.com onstartups onstartups.com opendiary
    opendiary.com org.internations org.internations.internations.ios org.joinmastodon.android org.telegram.messenger
    org.telegram.messenger.web org.telegram.telegram-ios org.telegram.telegramenterprise org.thunderdog.challegram
    org.wordpress org.wordpress.android oshiete.goo.ne.jp out.reddit.com over-blog.com overblog.com paper.li
    parler.com partyflock.nl patreon.com ph.telegra.telegraph photobucket photobucket.com pin.it pinboard pinboard.in
    pingsta pingsta.com pinterest pinterest.at pinterest.ca pinterest.ch pinterest.cl pinterest.co.kr pinterest.co.uk
    pinterest.com pinterest.com.au pinterest.com.mx pinterest.de pinterest.es pinterest.fr pinterest.it pinterest.jp
    pinterest.nz pinterest.ph pinterest.pt pinterest.ru pinterest.se pixiv.net pl.pinterest.com playahead.se plurk
    plurk.com plus.google.com plus.url.google.com pocket.co posterous posterous.com primal.net pro.homeadvisor.com
    producthunt.com pulse.yahoo.com qapacity qapacity.com quechup quechup.com quora quora.com qzone.qq.com ravelry
    ravelry.com redd.it reddit reddit.com redux redux.com renren renren.com researchgate.net reunion reunion.com
    reverbnation reverbnation.com rtl.de ru.odnoklassniki.iphone ru.ok.android ru.ok.dating ru.ok.live
    ru.ramblerco.livejournal ryze ryze.com salespider salespider.com scoop.it screenrant screenrant.com scribd
    scribd.com scvngr scvngr.com secondlife secondlife.com serverfault serverfault.com shareit shareit.lite sharethis
    sharethis.com shvoong.com sites.google.com skype skyrock skyrock.com slashdot.org slideshare.net smartnews.com
    snapchat snapchat.com snort.social social sociallife.com.br socialvibe socialvibe.com spaces.live.com spill.com
    spoke spoke.com spoutible.com spruz spruz.com ssense.android.prod ssense.com stackapps stackapps.com stackexchange
    stackexchange.com stackoverflow stackoverflow.com stardoll.com stickam stickam.com story.kakao.com studivz.net
    substack.com suomi24.fi superuser superuser.com sweeva sweeva.com t.cn t.co t.me tagged tagged.com taggedmail
    taggedmail.com talkbiznow talkbiznow.com taringa.net techhub.social techmeme techmeme.com telegram.me tencent
    tencent.com threads.com threads.net tiktok tiktok.com tinyurl tinyurl.com toolbox toolbox.com touch.facebook.com
    tr.pinterest.com travellerspoint travellerspoint.com tripadvisor tripadvisor.com trombi trombi.com trustpilot
    truthsocial.com tudou tudou.com tuenti tuenti.com tumblr tumblr.com tv.ustream.ustream tweetdeck tweetdeck.com
    twitter twitter.com twoo.com typepad typepad.com unblog.fr urbanspoon.com ushareit.com ushi.cn vampirefreaks
    vampirefreaks.com vampirerave vampirerave.com vero.co vg.no video.ibm.com vk.cc vk.com vkontakte.ru wa.me wakoopa
    wakoopa.com warpcast.com wattpad wattpad.com web.facebook.com web.skype.com web.telegram.org web.whatsapp.com
    webshots webshots.com wechat wechat.com weebly weebly.com wefwef weibo weibo.com wer-weiss-was.de weread
    weread.com whatsapp whatsapp.com wiki.answers.com wikihow.com wikitravel.org woot.com wordpress wordpress.com
    wordpress.org www.lemon8-app.com www.threads.net wx.qq.com x.com xanga xanga.com xhslink.com xiaohongshu.com xing
    xing.com xyz.blueskyweb.app yahoo-mbga.jp yammer yammer.com yelp yelp.co.uk yelp.com youroom.in za.pinterest.com
    zalo zalo.me zoo.gr zooppa zooppa.com
  `,
  Shopping: `
    1688.com aax-us-east.amazon-adsystem.com aax.amazon-adsystem.com alibaba alibaba.com allegro.pl amazon
    amazon.co.uk amazon.com americanas.com.br apps.shopify.com backmarket.com bol.com bukalapak.com casasbahia.com.br
    cdiscount.com checkout.shopify.com checkout.stripe.com cn.amazon.mshop.android
    com.alibaba.intl.android.apps.poseidon com.alibaba.intl.android.apps.twa com.alibaba.sourcing
    com.alibaba.sourcing.ent com.amazon.avod.thirdpartyclient com.amazon.kindle com.amazon.kindlefs com.amazon.mp3
    com.amazon.mshop.android.business.shopping com.amazon.mshop.android.shopping com.audible.application
    com.ebay.mobile com.etsy.android com.etsy.butter.sell_on_etsy com.etsy.butter.sell_on_etsy.enterprise
    com.jadedpixel.pos com.jadedpixel.shopify com.mercadolibre com.mercadolibre.android.melistore
    com.mercadopago.wallet com.shopify.arrive com.shopify.banking com.shopify.mobile com.shopify.pos
    com.simplycodes.mobile com.stripe.android.dashboard com.walmart.android com.walmart.electronics coupang.com
    cr.shopping.naver.com cr2.shopping.naver.com depop.com ebay ebay.co.uk ebay.com ebay.com.au ebay.de etsy etsy.com
    goat.com grailed.com igshopping in.amazon.mshop.android.business.shopping in.amazon.mshop.android.shopping
    jumia.com kaola.com lazada.com m.alibaba.com m.shopping.naver.com meesho.com mercadolibre mercadolibre.com
    mercadolibre.com.ar mercadolibre.com.mx mercadolivre.com.br mercari.com message.alibaba.com
    msearch.shopping.naver.com namshi.com nl.shopping.net no.shopping.net noon.com offer.alibaba.com one.walmart.com
    order.shopping.yahoo.co.jp otto.de ozon.ru partners.shopify.com pinduoduo.com poshmark.com s3.amazonaws.com
    se.shopping.net shein.com shop.app shop.tiktok.com shopee.com shopify shopify.com shopping shopping.naver.com
    shopping.yahoo.co.jp shopping.yahoo.com shopzilla shopzilla.com simplycodes.com stockx.com
    store.shopping.yahoo.co.jp stripe stripe.com talkshop.live temu.com therealreal.com thredup.com tokopedia.com
    trendyol.com uk.shopping.net vestiairecollective.com vinted.com walmart walmart.com whatnot.com wildberries.ru
    zalando.com zalora.com
  `,
  Video: `
    b23.tv bilibili.com blog.twitch.tv com.crackle.crackle-iphone com.curiosity.curiositystream
    com.dailymotion.dailymotion com.disney.disneyplus com.google.android.apps.automotive.youtube
    com.google.android.apps.youtube.kids com.google.android.apps.youtube.music
    com.google.android.apps.youtube.music.pwa com.google.android.youtube com.google.android.youtube.tv
    com.google.ios.youtube com.google.ios.youtube.enterprise com.google.ios.youtube.release com.google.ios.youtubekids
    com.google.ios.youtubemusic com.google.ios.youtubemusic.enterprise com.google.ios.youtubeunplugged
    com.hulu.iosbowie com.hulu.plus com.iqiyi.i18n com.iqiyi.i18n.tv com.iqiyi.knowledge com.iqiyi.paopao
    com.iqiyi.player com.iqiyi.reader com.netflix.mediaclient com.netflix.netflix com.netflix.ninja
    com.netflix.ssicapp com.qiyi.hd com.qiyi.iphone com.qiyi.qypaopao com.qiyi.video com.qiyi.video.lite
    com.qiyi.video.pad com.ted.ted com.vimeo com.vimeo.android.daytripper com.vimeo.android.videoapp
    com.vimeo.enterprise com.vimeo.universallinkz com.youku.hd com.youku.youku crackle crackle.com curiositystream
    curiositystream.com d.tube dailymotion dailymotion.com dashboard.twitch.tv disneyplus disneyplus.com
    fast.wistia.net help.hulu.com help.netflix.com hulu hulu.com id.twitch.tv iq.com iqiyi iqiyi.com ixigua.com
    jobs.netflix.com justin.tv kick.com kuaishou.com m.twitch.tv m.youtube.com music.youtube.com netflix netflix.com
    player.twitch.tv player.vimeo.com rumble.com rutube.ru sooplive.co.kr sooplive.com ted ted.com tv.twitch
    tv.twitch.android.app tv.twitch.android.viewer twitch twitch.tv utreon utreon.com veoh veoh.com
    viadeo.journaldunet.com vimeo vimeo.com wistia wistia.com youku youku.com youtube youtube.com
  `,
  Email: `
    ch.protonmail.android ch.protonmail.protonmail com.aol.mobile.aolapp com.aol.mobile.aolclient com.apple.mobilemail
    com.easilydo.mail com.google.android.gm com.google.android.gm.lite com.google.gmail com.microsoft.office.outlook
    com.microsoft.outlooklite com.pingapp.app com.readdle.smartemail com.samsung.android.email.provider
    com.superhuman.mail com.superhuman.superhuman com.yahoo.aerogram com.yahoo.mobile.client.android.mail
    com.yahoo.mobile.client.android.mail.lite com.yahoo.mobile.client.android.nativemail
    enterprise.aol.mobile.aolclient mail.aol.co.uk mail.aol.com mail.google.com mail.proton.me mail.yahoo.com
    me.bluemail.mail org.kman.aquamail outlook.live.com ru.mail.mail ru.mail.mailapp ru.yandex.mail
  `,
};

/** Sources with an organic channel only and no domain type. */
const ORGANIC_ONLY_SOURCES: ReadonlyArray<readonly [string, string]> = [
  ["e mail", "Email"],
  ["e-mail", "Email"],
  ["e_mail", "Email"],
  ["email", "Email"],
  ["firebase", "Push"],
  ["sms", "SMS"],
];

/** utm_medium values: [medium, channel if paid, channel if organic]. */
const MEDIUMS: ReadonlyArray<readonly [string, string | null, string]> = [
  ["affiliate", null, "Affiliate"],
  ["app", null, "Referral"],
  ["audio", null, "Audio"],
  ["banner", "Display", "Display"],
  ["cpm", "Display", "Display"],
  ["display", "Display", "Display"],
  ["e mail", null, "Email"],
  ["e-mail", null, "Email"],
  ["e_mail", null, "Email"],
  ["email", null, "Email"],
  ["expandable", "Display", "Display"],
  ["interstitial", "Display", "Display"],
  ["link", null, "Referral"],
  ["mobile", null, "Push"],
  ["notification", null, "Push"],
  ["partnership", null, "Affiliate"],
  ["partnerships", null, "Affiliate"],
  ["push", null, "Push"],
  ["referral", null, "Referral"],
  ["sm", "Paid Social", "Organic Social"],
  ["social", "Paid Social", "Organic Social"],
  ["social media", "Paid Social", "Organic Social"],
  ["social network", "Paid Social", "Organic Social"],
  ["social-media", "Paid Social", "Organic Social"],
  ["social-network", "Paid Social", "Organic Social"],
  ["video", "Paid Video", "Organic Video"],
];

function sourceDefinitions(): Map<string, ChannelDefinition> {
  const sources = new Map<string, ChannelDefinition>();
  for (const [kind, list] of Object.entries(SOURCES_BY_KIND) as Array<[SourceKind, string]>) {
    const ifPaid = kind === "Email" ? null : `Paid ${kind}`;
    const ifOrganic = kind === "Email" ? "Email" : `Organic ${kind}`;
    for (const source of list.split(/\s+/)) if (source !== "") sources.set(source, { domainType: kind, ifPaid, ifOrganic });
  }
  for (const [source, ifOrganic] of ORGANIC_ONLY_SOURCES) sources.set(source, { domainType: null, ifPaid: null, ifOrganic });
  return sources;
}

/** Definitions keyed by source (the dictionary's `(domain, 'source')` rows). */
export const SOURCE_DEFINITIONS: ReadonlyMap<string, ChannelDefinition> = sourceDefinitions();

/** Definitions keyed by medium (the dictionary's `(domain, 'medium')` rows). */
export const MEDIUM_DEFINITIONS: ReadonlyMap<string, ChannelDefinition> = new Map(MEDIUMS.map(([medium, ifPaid, ifOrganic]) => [medium, { domainType: null, ifPaid, ifOrganic }]));
