"""The report's style sheet and scripts, inlined into every page (no network access is
needed to open a report).

``ERROR_TRAP`` runs first and records every uncaught script error in
``window.__bridgeErrors`` (the browser tests read it). ``SCRIPT`` turns the pages of
long sequence charts (kept as text in ``script`` elements of type
``text/x-bridge-page``), follows links to steps that live on another page, inserts what a
``details.lazy`` keeps as text (``text/x-bridge-lazy``: control-flow graphs, long
tables) when it is opened, sorts tables by a clicked header, and finally sets ``data-ready="1"`` on the
root element (and ``data-ready-ms``: milliseconds since navigation started).
"""

ERROR_TRAP = """window.__bridgeErrors=[];window.addEventListener('error',function(e){
window.__bridgeErrors.push(String(e.message||e));});"""

STYLE = """
:root{--fg:#1d2330;--muted:#5f6b7a;--line:#d9dee5;--bg:#ffffff;--panel:#f6f8fa;
--holds:#2e7d32;--violated:#c62828;--unknown:#b26a00;--accent:#1f5fa8;--loop:#b58900}
*{box-sizing:border-box}
body{margin:0;font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;
color:var(--fg);background:var(--bg)}
header.top{padding:14px 24px;border-bottom:1px solid var(--line);background:var(--panel)}
header.top h1{margin:0;font-size:20px}
header.top p{margin:4px 0 0;color:var(--muted)}
.layout{display:flex;align-items:flex-start}
nav.toc{position:sticky;top:0;max-height:100vh;overflow:auto;width:260px;flex:none;
padding:12px 14px;border-right:1px solid var(--line);font-size:13px}
nav.toc ul{list-style:none;margin:0;padding:0}
nav.toc li{margin:3px 0}
nav.toc a{color:var(--fg);text-decoration:none}
nav.toc a:hover{text-decoration:underline}
main{flex:1;min-width:0;padding:8px 24px 60px}
section{margin:18px 0 30px}
h2{font-size:17px;margin:22px 0 6px;border-bottom:1px solid var(--line);padding-bottom:4px}
h3{font-size:14px;margin:18px 0 6px;color:#333}
code,pre,.mono{font-family:ui-monospace,"DejaVu Sans Mono",Menlo,Consolas,monospace;font-size:12px}
.badge{display:inline-block;padding:1px 8px;border-radius:10px;font-size:12px;
font-weight:600;color:#fff;vertical-align:middle}
.badge.holds,.badge.pass{background:var(--holds)}
.badge.violated,.badge.MISMATCH,.badge.ERROR,.badge.error{background:var(--violated)}
.badge.unknown,.badge.limit,.badge.timeout{background:var(--unknown)}
.badge.reported{background:#1565c0}
.badge.missing,.badge.skipped,.badge.unsupported{background:#8a8a8a}
.reason{color:var(--muted);font-weight:normal;font-size:13px}
.meta{color:var(--muted);margin:2px 0 8px}
.table-wrap{overflow-x:auto;max-width:100%}
table{border-collapse:collapse;margin:6px 0 10px;font-size:13px}
th,td{border:1px solid var(--line);padding:3px 8px;text-align:left;vertical-align:top}
th{background:var(--panel);font-weight:600}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}
table.sortable th{cursor:pointer}
table.regress td:last-child,table.compare td:last-child{min-width:320px}
table.regress td{white-space:nowrap}
table.regress td:last-child{white-space:normal}
table.sortable th:hover{background:#e8edf3}
tr.fair td:last-child{color:var(--holds)}
tr.unfair td{background:#fdecea}
tr.status-pass td:first-child{border-left:4px solid var(--holds)}
tr.status-MISMATCH td,tr.status-ERROR td{background:#fdecea}
tr.status-limit td{background:#fff8e1}
tr.status-reported td{background:#e8f1fb}
tr.status-missing td,tr.status-skipped td{color:var(--muted)}
tr.verdict-timeout td{background:#f3f3f3}
tr.verdict-violated td:nth-child(4){color:var(--violated);font-weight:600}
tr.verdict-holds td:nth-child(4){color:var(--holds);font-weight:600}
.note{color:var(--muted);font-style:italic}
.warning{background:#fff4e5;border-left:4px solid #f57c00;padding:6px 10px}
.disagree{background:#fdecea;border-left:4px solid var(--violated);padding:6px 10px;font-weight:600}
.caption{color:var(--muted);margin:2px 0 4px}
.pager{display:flex;gap:6px;align-items:center;margin:4px 0}
.pager button{font-size:13px;padding:1px 8px}
.pager input{width:80px}
.msc-view,.graph-view{overflow:auto;max-height:78vh;border:1px solid var(--line);background:#fff}
.graph-view{padding:6px}
.msc-page text{font:11px ui-monospace,"DejaVu Sans Mono",Menlo,monospace;fill:#222}
.msc-page .msc-proc{font-weight:700;fill:#17324d}
.msc-page .msc-head-text{fill:var(--muted);font-style:italic}
.msc-page .lifeline{stroke:#b9c2cc;stroke-dasharray:3 3}
.msc-page .row-hit{fill:transparent}
.msc-page g.step:hover .row-hit{fill:#eef3fb}
.msc-page g.step.flash .row-hit{fill:#ffe082}
.msc-page .dot{fill:var(--accent)}
.msc-page .barrier-dot{fill:#7b1fa2}
.msc-page .barrier{stroke:#7b1fa2;stroke-width:2.2}
.msc-page .msg{stroke:var(--accent);stroke-width:1.4}
.msc-page .msg.buffered{stroke-dasharray:5 3}
.msc-page .msc-head{fill:#333}
.msc-page .msg-label{fill:#0d3b6e;font-size:10px}
.msc-page .msc-line{fill:var(--accent);text-decoration:underline}
.msc-page .msc-event{fill:#000}
.msc-page .msc-idle{fill:var(--muted);font-style:italic}
.msc-page .loop-band{fill:#fff8e1}
.msc-page .loop-rule{stroke:var(--loop);stroke-dasharray:6 3;stroke-width:1.4}
.msc-page .loop-label{fill:#7a5c00;font-style:italic}
.msc-page .loop-back{stroke:var(--loop);stroke-width:1.6;fill:none}
details{margin:6px 0}
details>summary{cursor:pointer}
details.cfg{border:1px solid var(--line);border-radius:4px;padding:4px 8px}
.cfg-graph{overflow:auto;max-height:70vh}
pre.source{background:var(--panel);padding:6px 0;overflow:auto;max-height:70vh;margin:4px 0}
pre.source .line{display:block;padding:0 10px}
pre.source .line:target{background:#ffe082}
pre.source .ln{display:inline-block;width:42px;color:var(--muted);text-align:right;
margin-right:12px;text-decoration:none;user-select:none}
.plots svg{max-width:100%;height:auto}
"""

SCRIPT = r"""
(function(){
'use strict';
function charts(){return document.querySelectorAll('.msc');}
function status(msc){return msc.querySelector('.pager-status');}
function showPage(msc,k){
  var pages=+msc.dataset.pages,size=+msc.dataset.pageSize,total=+msc.dataset.total;
  k=Math.max(0,Math.min(pages-1,k));
  if(msc._page===k)return;
  var id=msc.id.replace(/-msc$/,'');
  var t=document.getElementById(id+'-page-'+k);
  if(!t)return;
  var view=msc.querySelector('.msc-view');
  if(!document.getElementById(id+'-page-'+msc._page)){
    var keep=document.createElement('script');
    keep.type='text/x-bridge-page';
    keep.id=id+'-page-'+msc._page;
    keep.textContent=view.innerHTML;
    msc.appendChild(keep);
  }
  view.innerHTML=t.textContent;
  msc._page=k;
  var s=status(msc);
  if(s){s.textContent='steps '+(k*size+1)+'\u2013'+Math.min(total,(k+1)*size)+' of '+
    total+' (page '+(k+1)+' of '+pages+')';}
}
function pageOf(msc,n){return Math.floor((n-1)/(+msc.dataset.pageSize));}
function openParents(el){
  for(var p=el.parentElement;p;p=p.parentElement){
    if(p.tagName==='DETAILS'&&!p.open){p.open=true;}
  }
}
function reveal(hash){
  if(!hash||hash.charAt(0)!=='#')return;
  var name=decodeURIComponent(hash.slice(1));
  var m=/^(.+)-step-(\d+)$/.exec(name);
  if(m){
    var msc=document.getElementById(m[1]+'-msc');
    if(msc)showPage(msc,pageOf(msc,+m[2]));
  }
  var el=document.getElementById(name);
  if(!el)return;
  openParents(el);
  el.scrollIntoView({block:'center'});
  if(m){el.classList.add('flash');setTimeout(function(){el.classList.remove('flash');},2000);}
}
charts().forEach(function(msc){
  msc._page=0;
  msc.querySelectorAll('.pager button').forEach(function(b){
    b.addEventListener('click',function(){
      var k=msc._page,pages=+msc.dataset.pages,go=b.dataset.go;
      if(go==='first')k=0;else if(go==='prev')k-=1;else if(go==='next')k+=1;
      else if(go==='last')k=pages-1;else if(go==='loop')k=+msc.dataset.loopPage;
      showPage(msc,k);
    });
  });
  var input=msc.querySelector('.pager-step');
  if(input){input.addEventListener('change',function(){
    var n=parseInt(input.value,10);
    if(n>=1&&n<=+msc.dataset.total){reveal('#'+msc.id.replace(/-msc$/,'')+'-step-'+n);}
  });}
});
function fill(d){
  var t=d.querySelector(':scope > script[type="text/x-bridge-lazy"]');
  if(t){t.insertAdjacentHTML('afterend',t.textContent);t.remove();}
}
document.querySelectorAll('details.lazy').forEach(function(d){
  if(d.open)fill(d);
  d.addEventListener('toggle',function(){if(d.open)fill(d);});
});
document.addEventListener('click',function(e){
  var a=e.target.closest?e.target.closest('a'):null;
  if(!a)return;
  var h=a.getAttribute('href')||a.getAttributeNS('http://www.w3.org/1999/xlink','href');
  if(h&&h.charAt(0)==='#'){setTimeout(function(){reveal(h);},0);}
});
window.addEventListener('hashchange',function(){reveal(location.hash);});
function cellValue(td){
  var t=td.textContent.trim(),n=parseFloat(t.replace(/,/g,''));
  return (t!==''&&!isNaN(n)&&/^[-+]?[\d.,]+(e[-+]?\d+)?$/i.test(t))?n:t.toLowerCase();
}
document.querySelectorAll('table.sortable').forEach(function(table){
  table.querySelectorAll('thead th').forEach(function(th,i){
    th.addEventListener('click',function(){
      var body=table.tBodies[0],rows=Array.prototype.slice.call(body.rows);
      var asc=th.dataset.sort!=='asc';
      table.querySelectorAll('thead th').forEach(function(o){delete o.dataset.sort;});
      th.dataset.sort=asc?'asc':'desc';
      rows.sort(function(a,b){
        var x=cellValue(a.cells[i]),y=cellValue(b.cells[i]);
        if(typeof x!==typeof y){x=String(x);y=String(y);}
        return (x<y?-1:x>y?1:0)*(asc?1:-1);
      });
      rows.forEach(function(r){body.appendChild(r);});
    });
  });
});
if(location.hash)reveal(location.hash);
document.documentElement.dataset.readyMs=String(Math.round(performance.now()));
document.documentElement.dataset.ready='1';
})();
"""
